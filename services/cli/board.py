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

from rich.console import Console, Group, RenderableType
from rich.rule import Rule

from shared.i18n import Translator
from shared.rules.rule_errors import N_

from .lang import ENGLISH, counted
from .untrusted import markup_text, name_text

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
KEYS = {"raise": "r", "remainder": "m", "accept": "a", "reject": "x", "propose_redeal": "d", "fold": "f",
        "resign": "g", "cancel": "c"}
WORDS = {"raise": N_("raise (2 more?)"), "remainder": N_("my remainder"), "accept": N_("accept"),
         "reject": N_("reject"), "propose_redeal": N_("propose a redeal"), "fold": N_("fold"),
         "resign": N_("resign (give up)"), "cancel": N_("cancel the match")}
WARN_SECONDS = 10  # a player whose clock runs is told once when this little is left
# How a match ended (the view's ``ended_by``), told to a seated player: (won, ended_by) -> the sentence.
ENDINGS = {
    (True, "score"): N_("Match over: you won {mine}–{theirs}: on score."),
    (False, "score"): N_("Match over: you lost {mine}–{theirs}: on score."),
    (True, "resigned"): N_("Match over: you won {mine}–{theirs}: they resigned."),
    (False, "resigned"): N_("Match over: you lost {mine}–{theirs}: you resigned."),
    (True, "abandoned"): N_("Match over: you won {mine}–{theirs}: they ran out of time twice in a row."),
    (False, "abandoned"): N_("Match over: you lost {mine}–{theirs}: you ran out of time twice in a row."),
    (True, "round_cap"): N_("Match over: you won {mine}–{theirs}: the round limit was reached."),
    (False, "round_cap"): N_("Match over: you lost {mine}–{theirs}: the round limit was reached."),
    (True, "aborted"): N_("Match aborted before round 1 was over: you won {mine}–{theirs}, but it does not count."),
    (False, "aborted"): N_("Match aborted before round 1 was over: you lost {mine}–{theirs}, but it does not count."),
    (True, None): N_("Match over: you won {mine}–{theirs}."),
    (False, None): N_("Match over: you lost {mine}–{theirs}."),
}
CANCELLED = {"cancelled": N_("Match cancelled by its creator."), "expired": N_("Match expired: nobody joined in time.")}
# What was asked and is waiting for an answer: (asked by me, type) -> the sentence.
QUESTIONS = {
    (True, "raise"): N_("you asked: 2 more? (to {value})"), (False, "raise"): N_("they asked: 2 more? (to {value})"),
    (True, "remainder"): N_("you asked: my remainder!"), (False, "remainder"): N_("they asked: my remainder!"),
    (True, "redeal"): N_("you asked: redeal?"), (False, "redeal"): N_("they asked: redeal?"),
}


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


def render(console: Console, view: dict[str, Any], message: str = "", now: float | None = None,
           tr: Translator = ENGLISH) -> None:
    """Print the table once (:func:`frame`), below whatever was printed before."""
    console.print(frame(view, message, now, tr))


def frame(view: dict[str, Any], message: str = "", now: float | None = None, tr: Translator = ENGLISH) -> Group:
    """The table as one renderable (a live display redraws it in place): the players and scores,
    the round and its clock, your hand, the keys you may press."""
    _ = tr.gettext
    me = view["you"]
    other = "B" if me == "A" else "A"
    players = view["players"]
    names = {seat: name_text(players[seat]["name"]) if players.get(seat) else _("(waiting)") for seat in ("A", "B")}
    match = markup_text(view["id"])
    lines: list[RenderableType] = [Rule(_("Le Truc · match {match} · you are {seat} ({name}) vs {other}", match=match,
                                          seat=markup_text(me), name=names[me], other=names[other]))]
    mine, theirs, target = (markup_text(value) for value in (view["scores"][me], view["scores"][other],
                                                             view["rules"]["target"]))
    lines.append(_("Score  you {mine} · {theirs} them   (first to {target})", mine=mine, theirs=theirs, target=target))
    if view["status"] == "waiting":
        lines.append(_("Waiting for an opponent: they join with  {command}",
                       command="truc play --name NAME --join " + match))
    elif view["status"] in ("finished", "cancelled"):
        lines.append(f"[bold]{ending(view, mine, theirs, tr)}[/bold]")
    elif view.get("round"):
        lines.extend([*_round_lines(view["round"], me, other, tr), clock_line(view, now, tr)])
    if message:
        lines.append(markup_text(message, "red"))
    keys = key_map(view)
    if keys:
        words = {k: markup_text(a["card"]) if a["type"] == "play" else _(WORDS[a["type"]]) for k, a in keys.items()}
        choices = " ".join(f"\\[{k}] {word}" for k, word in words.items())
        lines.append(_("Your move: {choices}   {quit}", choices=choices, quit="\\[q] " + _("quit")))
    return Group(*lines)


def ending(view: dict[str, Any], mine: str, theirs: str, tr: Translator = ENGLISH) -> str:
    """How the match ended, as markup: who won and why, or why it was cancelled."""
    ended_by = view.get("ended_by") if isinstance(view.get("ended_by"), str) else None
    if view["status"] == "cancelled":
        return tr.gettext(CANCELLED.get(ended_by, N_("Match cancelled.")))
    won = view["winner"] == view["you"]
    sentence = ENDINGS.get((won, ended_by), ENDINGS[(won, None)])
    return tr.gettext(sentence, mine=mine, theirs=theirs)


def clock_line(view: dict[str, Any], now: float | None = None, tr: Translator = ENGLISH) -> str:
    """Whose clock runs and the seconds left (R28), red once few are left."""
    clock = view.get("clock") or {}
    mine = clock.get("seat") == view["you"]
    left = seconds_left(view, now)
    if left is None:
        return tr.gettext("Your clock runs") if mine else tr.gettext("Their clock runs")
    colour = "bold red" if left <= WARN_SECONDS else "none"
    raw = clock.get("turn_seconds", "?")
    of = counted(tr, "(of {value} s a move)", "(of {value} s a move)", raw, value=markup_text(raw))
    shown = tr.ngettext("{count} s left", "{count} s left", left)
    shown = f"[{colour}]{shown}[/{colour}]"
    if mine:
        return tr.gettext("Your clock: {left} {of}", left=shown, of=of)
    return tr.gettext("Their clock: {left} {of}", left=shown, of=of)


def _round_lines(rnd: dict[str, Any], me: str, other: str, tr: Translator = ENGLISH) -> list[str]:
    _ = tr.gettext
    remainder = " · [bold]" + _("remainder round") + "[/bold]" if rnd["remainder_round"] else ""
    number, dealer, value = (markup_text(rnd[field]) for field in ("number", "dealer", "value"))
    worth = counted(tr, "worth {value} point", "worth {value} points", rnd["value"], value=value)
    lines = [_("Round {number} · dealer {dealer} · {worth}", number=number, dealer=dealer, worth=worth) + remainder]
    for i, trick in enumerate(rnd["tricks"], 1):
        result = f"→ {markup_text(trick['winner'])}" if trick["winner"] else (_("spoiled") if trick["spoiled"] else "")
        lines.append("  " + _("trick {number}: you {mine}  them {theirs}  {result}", number=i,
                              mine=pretty(trick["cards"][me]), theirs=pretty(trick["cards"][other]), result=result))
    pending = rnd["pending"]
    if pending:
        question = QUESTIONS[(pending["by"] == me, pending["type"])]
        lines.append("  [yellow]" + _(question, value=markup_text(pending.get("value"))) + "[/yellow]")
    hand = "  ".join(f"\\[{i}] {pretty(card)}" for i, card in enumerate(rnd["hand"], 1))
    turn = _whose_decision(rnd, me, tr)
    lines.append(_("Your hand: {cards}   ({turn})", cards=hand, turn=turn))
    return lines


def _whose_decision(rnd: dict[str, Any], me: str, tr: Translator = ENGLISH) -> str:
    """Who the match waits for, as the clock says it: a question asked waits for the answer of
    the seat that did not ask; otherwise the seat on turn plays."""
    pending = rnd.get("pending")
    if not pending:
        return tr.gettext("your turn") if rnd["turn"] == me else tr.gettext("their turn")
    return tr.gettext("their answer") if pending["by"] == me else tr.gettext("your answer")
