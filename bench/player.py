"""Whole matches played through the API by one client, both seats, every command timed.

The client knows every card: it creates each match with fixture ``decks`` (the API's
documented option), so it can mirror the match with the rules engine and always send a
legal action with the right ``If-Match`` - no read of a view between commands, so what is
timed is the command path only. Should a match outlast its decks (the server then deals
from the match's secret seed), the client cannot see the new hands and folds the match to
its end instead.

For throughput a client plans its matches before the measured window (:func:`plan_match`:
the rules engine chooses every action and the version it must lead to), so inside the
window it only sends them and checks that the server agrees; the clients share the
machine with the server, and the reference's clients plan nothing either.
"""
from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared.rules import (
    INITIAL,
    CreateMatch,
    Event,
    JoinMatch,
    MatchState,
    Raise,
    Seat,
    Status,
    Step,
    command_for,
    step,
)
from shared.rules.cards import shuffled_deck
from shared.rules.check import refusal

from .wire import Http

DECKS_PER_MATCH = 24  # 23 scoring rounds can finish any match to 12; spares for void rounds
Record = Callable[[str, float], None]  # (command kind, seconds)
_names = itertools.count()


def register(http: Http, record: Record) -> str:
    """Register a fresh player; its bearer token."""
    name = f"b{os.getpid()}x{next(_names)}"
    body, elapsed = http.expect(201, "POST", "/players", body={"name": name})
    record("register", elapsed)
    return body["token"]


def choose(state: MatchState, rng: random.Random) -> tuple[Seat, dict[str, Any]]:
    """A legal action and the seat sending it: mostly cards, some raises, answers, rare folds."""
    rnd = state.round
    assert rnd is not None
    if rnd.pending is not None:
        return rnd.pending.by.other, {"type": "accept" if rng.random() < 0.75 else "reject"}
    seat, roll = rnd.turn, rng.random()
    if roll < 0.12 and refusal(state, Raise(seat)) is None:
        return seat, {"type": "raise"}
    if roll < 0.14:
        return seat, {"type": "fold"}
    return seat, {"type": "play", "card": rng.choice(rnd.hand(seat))}


@dataclass(frozen=True)
class Plan:
    """A match decided in advance: its decks, the version after the join, and every action
    with the seat sending it and the version it leads to (None: past the decks, see above).

    ``events``: what the engine recorded from the join on, which the server must record too
    (its ``match_won`` also reveals the match's seed; a blind ending is not planned)."""

    decks: tuple[tuple[str, ...], ...]
    joined_version: int
    steps: tuple[tuple[Seat, dict[str, Any], int | None], ...]
    events: tuple[Event, ...] = ()


def plan_match(rng: random.Random, decks: int = DECKS_PER_MATCH) -> Plan:
    """Play a match with the rules engine alone, as :meth:`MatchPlayer.play` would over HTTP."""
    dealt = tuple(shuffled_deck(rng) for _ in range(decks))
    state, recorded = _created_and_joined("m", dealt)
    joined, steps = len(recorded), []
    while state.status is not Status.FINISHED:
        seat, action = choose(state, rng)
        try:
            state, events = step(state, command_for(seat, action))
        except ValueError:  # a round beyond the decks: the server deals it from the seed
            steps.append((seat, action, None))
            break
        recorded += events
        steps.append((seat, action, len(recorded)))
    else:  # finished within its decks: send only those it deals (a smaller, likelier create)
        dealt = dealt[:state.rounds_dealt]
    return Plan(dealt, joined, tuple(steps), tuple(recorded[1:]))


def _created_and_joined(match_id: str, decks: tuple[tuple[str, ...], ...]) -> tuple[MatchState, list[Event]]:
    """The mirror of a match created with ``decks`` and joined, and its events."""
    state, recorded = INITIAL, []
    for command in (CreateMatch(match_id, "a", first_dealer=Seat.B, decks=decks), JoinMatch("b")):
        state, events = step(state, command)
        recorded += events
    return state, recorded


class MatchPlayer:
    """Plays matches as both seats of fresh players over one kept-alive connection."""

    def __init__(self, http: Http, rng: random.Random, record: Record, decks: int = DECKS_PER_MATCH) -> None:
        self.http, self.rng, self.record, self.decks = http, rng, record, decks
        self.match_id = ""
        self.version = 0
        self.state: MatchState = INITIAL
        self.tokens: dict[Seat, str] = {}

    def start(self, rules: dict[str, Any] | None = None, decks: tuple[tuple[str, ...], ...] | None = None) -> None:
        """Register two players, create a match as A (with ``decks``, else fresh ones) and join it as B."""
        self.tokens = {Seat.A: register(self.http, self.record), Seat.B: register(self.http, self.record)}
        decks = decks or tuple(shuffled_deck(self.rng) for _ in range(self.decks))
        body: dict[str, Any] = {"first_dealer": "B", "decks": [list(deck) for deck in decks]}
        if rules:
            body["rules"] = rules
        created, elapsed = self.http.expect(201, "POST", "/matches", body=body, token=self.tokens[Seat.A])
        self.record("create", elapsed)
        self.match_id = created["id"]
        joined, elapsed = self.http.expect(200, "POST", f"/matches/{self.match_id}/join",
                                          body={"accept_custom": True}, token=self.tokens[Seat.B])
        self.record("join", elapsed)
        self.state = _created_and_joined(self.match_id, decks)[0]
        self.version = joined["version"]

    @property
    def finished(self) -> bool:
        return self.state.status is Status.FINISHED

    def act(self, seat: Seat, action: dict[str, Any]) -> dict[str, Any]:
        """Send one action with ``If-Match`` and mirror it; the API's answer."""
        mirrored: Step | None
        try:
            mirrored = step(self.state, command_for(seat, action))
        except ValueError:  # a round beyond the fixture decks: dealt from the seed, unseen here
            mirrored = None
        reply = self._send(seat, action)
        if mirrored is None:
            return self._blind(reply)
        self.state = mirrored.state
        return reply

    def _send(self, seat: Seat, action: dict[str, Any]) -> dict[str, Any]:
        reply, elapsed = self.http.expect(
            200, "POST", f"/matches/{self.match_id}/actions", body=action, token=self.tokens[seat],
            if_match=self.version,
        )
        self.record(action["type"], elapsed)
        self.version = reply["version"]
        return reply

    def _blind(self, reply: dict[str, Any]) -> dict[str, Any]:
        """Fold as A until the match is won (no card needs to be known for that)."""
        while not any(event["type"] == "match_won" for event in reply["events"]):
            reply, elapsed = self.http.expect(
                200, "POST", f"/matches/{self.match_id}/actions", body={"type": "fold"},
                token=self.tokens[Seat.A], if_match=self.version,
            )
            self.record("fold", elapsed)
            self.version = reply["version"]
        self.state = MatchState(status=Status.FINISHED)
        return reply

    def play(self, plan: Plan, until: float) -> bool:
        """The whole planned match, unless ``until`` (``time.monotonic``) comes first; True if it finished."""
        self.start(decks=plan.decks)
        _expect_version(plan.joined_version, self.version)
        for seat, action, version in plan.steps:
            if time.monotonic() >= until:
                return False
            reply = self._send(seat, action)
            if version is None:
                self._blind(reply)
                break
            _expect_version(version, self.version)
        self.state = MatchState(status=Status.FINISHED)
        return True


def _expect_version(planned: int, actual: int) -> None:
    if actual != planned:
        raise RuntimeError(f"the server is at version {actual} where the rules engine says {planned}")


__all__ = ["DECKS_PER_MATCH", "MatchPlayer", "Plan", "choose", "plan_match", "register"]
