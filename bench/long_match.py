"""Cost flat in match length: command latency near event 20 and near event 2,000 of one match.

One client plays long matches (rules ``{"target": 1000}``) as both seats with raises and
rejections only: the non-dealer raises, the dealer rejects, which ends the round (four
events for two commands, no card needs to be known). A match is first played, untimed,
to version 2,000. Then rounds are timed in pairs, one on that long match and one on a
short match between versions ~20 and ~40 (a new one is started, and played untimed to
version 20, whenever the short one gets past 40): both batches see the same load of the
machine, moment by moment. Each run uses a new long match; the baseline is the short one.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from .player import register
from .stack import Stack
from .stats import Figure, Spread
from .wire import Http

TARGET = 1000  # the rules engine's highest target: ~500 raise-reject rounds per seat


@dataclass
class LongMatch:
    """One match driven by raise-reject rounds over one kept-alive connection."""

    http: Http
    tokens: dict[str, str] = field(default_factory=dict)
    match_id: str = ""
    version: int = 0
    dealer: str = "B"

    def start(self) -> None:
        ignore = lambda kind, elapsed: None  # noqa: E731 - setup is not timed
        self.tokens = {"A": register(self.http, ignore), "B": register(self.http, ignore)}
        body = {"first_dealer": "B", "rules": {"target": TARGET}}
        created, _ = self.http.expect(201, "POST", "/matches", body=body, token=self.tokens["A"])
        self.match_id = created["id"]
        joined, _ = self.http.expect(200, "POST", f"/matches/{self.match_id}/join",
                                       body={"accept_custom": True}, token=self.tokens["B"])
        self.version = joined["version"]

    def _act(self, seat: str, action: str) -> tuple[dict[str, Any], float]:
        reply, elapsed = self.http.expect(
            200, "POST", f"/matches/{self.match_id}/actions", body={"type": action},
            token=self.tokens[seat], if_match=self.version,
        )
        self.version = reply["version"]
        return reply, elapsed

    def round(self) -> list[float]:
        """The non-dealer raises and the dealer rejects; the two commands' latencies."""
        non_dealer = "A" if self.dealer == "B" else "B"
        _, raised = self._act(non_dealer, "raise")
        reply, rejected = self._act(self.dealer, "reject")
        dealt = [e for e in reply["events"] if e["type"] == "round_dealt"]
        if not dealt:
            raise RuntimeError(f"the match ended at version {self.version}: raise the target")
        self.dealer = dealt[-1]["data"]["dealer"]
        return [raised, rejected]

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
