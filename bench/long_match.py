"""Cost flat in match length: command latency near event 20 and near event 2,000 of one match.

One client plays long matches (rules ``{"target": 100}``, R33's largest) as both seats. R33
ends a match after 4 x target rounds and at most 2 x target - 1 of them can score, so the
length comes from the rounds, not their number: in each one the non-dealer proposes a redeal
and the dealer refuses it, then every trick is played out, the leader leading a rank the
follower holds and the follower answering it when it can (a spoiled trick: more void rounds,
fewer points), about ten events a round. The first 64 rounds (the most fixture decks a match
takes) are dealt from a deck whose hands pair rank for rank, so they are void: some 800
events at 0-0 before the points start. On the engine, 200 seeds of this play reached 100
points at version 2,613 at the earliest, far past the ~2,100 the timed rounds reach.
Each seat's hand is read from ``/events`` (untimed) once it is dealt. A match is first played,
untimed, to version 2,000. Then rounds are timed in pairs, one on that long match and one on
a short match between versions ~20 and ~40 (a new one is started, and played untimed to
version 20, whenever the short one gets past 40): both batches see the same load of the
machine, moment by moment. Each run uses a new long match; the baseline is the short one.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from shared.rules.void_rounds import paired_deck

from .player import register
from .stack import Stack
from .stats import Figure, Spread
from .wire import Http

TARGET = 100  # R33's highest target for a new match: a cap of 400 rounds
VOID_DECKS = 64  # fixture decks (the most a match takes) whose rounds are void: length without points
OTHER = {"A": "B", "B": "A"}


@dataclass
class LongMatch:
    """One match driven round by round over one kept-alive connection."""

    http: Http
    tokens: dict[str, str] = field(default_factory=dict)
    match_id: str = ""
    version: int = 0
    dealer: str = "B"
    dealt_at: int = 0  # the version of the current round's round_dealt

    def start(self) -> None:
        ignore = lambda kind, elapsed: None  # noqa: E731 - setup is not timed
        self.tokens = {"A": register(self.http, ignore), "B": register(self.http, ignore)}
        body = {"first_dealer": "B", "rules": {"target": TARGET}, "decks": [list(paired_deck())] * VOID_DECKS}
        created, _ = self.http.expect(201, "POST", "/matches", body=body, token=self.tokens["A"])
        self.match_id = created["id"]
        joined, _ = self.http.expect(200, "POST", f"/matches/{self.match_id}/join",
                                       body={"accept_custom": True}, token=self.tokens["B"])
        self.version = self.dealt_at = joined["version"]

    def _act(self, seat: str, body: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
        reply, elapsed = self.http.expect(
            200, "POST", f"/matches/{self.match_id}/actions", body=body,
            token=self.tokens[seat], if_match=self.version,
        )
        self.version = reply["version"]
        return reply["events"], elapsed

    def _hand(self, seat: str) -> list[str]:
        """``seat``'s cards this round, as its holder reads the deal (not timed)."""
        page, _ = self.http.expect(200, "GET", f"/matches/{self.match_id}/events?after={self.dealt_at - 1}&limit=1",
                                   token=self.tokens[seat])
        return list(page["events"][0]["data"]["hands"][seat])

    def round(self) -> list[float]:
        """One round: a refused redeal, then the tricks; every command's latency."""
        hands = {seat: self._hand(seat) for seat in ("A", "B")}
        leader = OTHER[self.dealer]
        latencies = [self._act(leader, {"type": "propose_redeal"})[1], self._act(self.dealer, {"type": "reject"})[1]]
        while True:
            follower = hands[OTHER[leader]]
            card = next((c for c in hands[leader] if any(f[:-1] == c[:-1] for f in follower)), hands[leader][0])
            hands[leader].remove(card)
            answer = next((c for c in follower if c[:-1] == card[:-1]), follower[0])
            follower.remove(answer)
            latencies.append(self._act(leader, {"type": "play", "card": card})[1])
            events, elapsed = self._act(OTHER[leader], {"type": "play", "card": answer})
            latencies.append(elapsed)
            kinds = {event["type"]: event for event in events}
            if "match_won" in kinds:
                raise RuntimeError(f"the match ended at version {self.version}: play shorter")
            if "round_dealt" in kinds:
                self.dealer, self.dealt_at = kinds["round_dealt"]["data"]["dealer"], self.version
                return latencies
            leader = kinds["trick_won"]["data"]["seat"] if "trick_won" in kinds else leader

    def play_to(self, version: int) -> None:
        while self.version < version:
            self.round()


def _played_to(http: Http, version: int) -> LongMatch:
    """A new match, played untimed to ``version``."""
    match = LongMatch(http)
    match.start()
    match.play_to(version)
    return match


def measure(runs: int = 3, batch: int = 60, early: int = 20, late: int = 2000) -> dict[str, Any]:
    """p50 command latency near ``early`` and after ``late`` events, timed in alternation."""
    results = []
    with Stack(workers=2) as stack:
        http = Http(stack.api_port)
        _played_to(http, 200)  # the API's code paths and Redis's scripts are warm before timing
        for _ in range(runs):
            long = _played_to(http, late)
            short = _played_to(http, early)
            first: list[float] = []
            later: list[float] = []
            while len(later) < batch:
                if short.version > 2 * early:
                    short = _played_to(http, early)
                first += short.round()
                later += long.round()
            results.append({"early_version": early, "late_version": long.version,
                            "early_p50": statistics.median(first), "late_p50": statistics.median(later)})
        http.close()
    return {"batch": batch, "runs": results}


def figures(result: dict[str, Any]) -> list[Figure]:
    """p50 at ~2,000 events beside p50 at ~20 events, and their ratio."""
    runs = result["runs"]
    ratio = Spread.of([run["late_p50"] / run["early_p50"] for run in runs])
    return [Figure(
        "2. command p50 at event ~2,000", Spread.of([run["late_p50"] * 1000 for run in runs]), "ms",
        Spread.of([run["early_p50"] * 1000 for run in runs]), "at event ~20", ratio, "ratio <= 1.2",
        ratio.median <= 1.2, fmt=".2f",
    )]
