"""``truc play``'s table in the terminal: the players and scores, the round, the clock, your hand,
how the match ended, and the keys you may press.

Everything the server sends is data, never formatting: names are chosen by players and an
API can be anyone's, so each value goes through :func:`.untrusted.markup_text` before it is
put into a line of rich markup. The keys come from the view's ``legal_actions``, so only what
the rules accept now is offered.
"""
from __future__ import annotations

import math
import time
from datetime import datetime
from typing import Any

from rich.console import Console

from .untrusted import markup_text, name_text

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
KEYS = {"raise": "r", "remainder": "m", "accept": "a", "reject": "x", "propose_redeal": "d", "fold": "f",
        "resign": "g", "cancel": "c"}
WORDS = {"raise": "raise (2 more?)", "remainder": "my remainder", "accept": "accept", "reject": "reject",
         "propose_redeal": "propose a redeal", "fold": "fold", "resign": "resign (give up)",
         "cancel": "cancel the match"}
WARN_SECONDS = 10  # a player whose clock runs is told once when this little is left
# How a match ended (the view's ``ended_by``), told to a seated player; {loser} is "you" or "they".
ENDINGS = {"score": "on score", "resigned": "{loser} resigned", "abandoned": "{loser} ran out of time twice in a row"}
CANCELLED = {"cancelled": "Match cancelled by its creator.", "expired": "Match expired: nobody joined in time."}


def pretty(card: object) -> str:
    """A card as rich markup (its suit as a symbol); anything else the server sent, as plain text."""
    if card is None:
        return "··"
    if not isinstance(card, str) or len(card) < 2 or card[-1] not in SUITS:
        return markup_text(card)
    colour = "red" if card[-1] in "HD" else "bold"
    return f"[{colour}]{markup_text(card[:-1])}{SUITS[card[-1]]}[/{colour}]"


def key_map(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The keys the player may press now, each with the action body it sends."""
    hand = (view.get("round") or {}).get("hand", [])
    keys: dict[str, dict[str, Any]] = {}
    for action in view.get("legal_actions", []):
        if action["type"] == "play":
            keys[str(hand.index(action["card"]) + 1)] = action
        elif action["type"] in KEYS:
            keys[KEYS[action["type"]]] = action
    return keys


def seconds_left(view: dict[str, Any], now: float | None = None) -> int | None:
    """Whole seconds until the running clock's deadline (0 once passed); None without one."""
    deadline = (view.get("clock") or {}).get("deadline")
    try:
        due = datetime.fromisoformat(deadline).timestamp()
    except (TypeError, ValueError, OverflowError, OSError):  # none, or not a time a server would send
        return None
    return max(0, math.ceil(due - (time.time() if now is None else now)))


def render(console: Console, view: dict[str, Any], message: str = "", now: float | None = None) -> None:
    """Draw the table: the players and scores, the round and its clock, your hand, the keys you may press."""
    me = view["you"]
    other = "B" if me == "A" else "A"
    players = view["players"]
    names = {seat: name_text(players[seat]["name"]) if players.get(seat) else "(waiting)" for seat in ("A", "B")}
    match = markup_text(view["id"])
    console.rule(f"Le Truc · match {match} · you are {markup_text(me)} ({names[me]}) vs {names[other]}")
    mine, theirs, target = (markup_text(value) for value in (view["scores"][me], view["scores"][other],
                                                             view["rules"]["target"]))
    console.print(f"Score  you {mine} · {theirs} them   (first to {target})")
    if view["status"] == "waiting":
        console.print(f"Waiting for an opponent: they join with  truc play --name NAME --join {match}")
    elif view["status"] in ("finished", "cancelled"):
        console.print(f"[bold]{ending(view, mine, theirs)}[/bold]")
    elif view.get("round"):
        for line in [*_round_lines(view["round"], me, other), clock_line(view, now)]:
            console.print(line)
    if message:
        console.print(markup_text(message, "red"))
    keys = key_map(view)
    if keys:
        choices = " ".join(f"\\[{k}] {markup_text(a['card']) if a['type'] == 'play' else WORDS[a['type']]}"
                           for k, a in keys.items())
        console.print(f"Your move: {choices}   \\[q] quit")


def ending(view: dict[str, Any], mine: str, theirs: str) -> str:
    """How the match ended, as markup: who won and why, or why it was cancelled."""
    ended_by = view.get("ended_by") if isinstance(view.get("ended_by"), str) else None
    if view["status"] == "cancelled":
        return CANCELLED.get(ended_by, "Match cancelled.")
    won = view["winner"] == view["you"]
    why = ENDINGS.get(ended_by, "")
    reason = f": {why.format(loser='they' if won else 'you')}" if why else ""
    return f"Match over: {'you won' if won else 'you lost'} {mine}–{theirs}{reason}."


def clock_line(view: dict[str, Any], now: float | None = None) -> str:
    """Whose clock runs and the seconds left (R28), red once few are left."""
    clock = view.get("clock") or {}
    whose = "Your" if clock.get("seat") == view["you"] else "Their"
    left = seconds_left(view, now)
    if left is None:
        return f"{whose} clock runs"
    colour = "bold red" if left <= WARN_SECONDS else "none"
    of = markup_text(clock.get("turn_seconds", "?"))
    return f"{whose} clock: [{colour}]{left} s left[/{colour}] (of {of} s a move)"


def _round_lines(rnd: dict[str, Any], me: str, other: str) -> list[str]:
    remainder = " · [bold]remainder round[/bold]" if rnd["remainder_round"] else ""
    number, dealer, value = (markup_text(rnd[field]) for field in ("number", "dealer", "value"))
    lines = [f"Round {number} · dealer {dealer} · worth {value}{remainder}"]
    for i, trick in enumerate(rnd["tricks"], 1):
        result = f"→ {markup_text(trick['winner'])}" if trick["winner"] else ("spoiled" if trick["spoiled"] else "")
        lines.append(f"  trick {i}: you {pretty(trick['cards'][me])}  them {pretty(trick['cards'][other])}  {result}")
    pending = rnd["pending"]
    if pending:
        asker = "you" if pending["by"] == me else "they"
        question = {"raise": f"2 more? (to {markup_text(pending['value'])})", "remainder": "my remainder!",
                    "redeal": "redeal?"}[pending["type"]]
        lines.append(f"  [yellow]{asker} asked: {question}[/yellow]")
    hand = "  ".join(f"\\[{i}] {pretty(card)}" for i, card in enumerate(rnd["hand"], 1))
    lines.append(f"Your hand: {hand}   ({'your turn' if rnd['turn'] == me else 'their turn'})")
    return lines
