"""What a recorded match should fold to: its views, scores, results and replays, as JSON.

The recorder writes this beside each export; the corpus test computes it again with
today's code and compares the two on every field the recorded one holds (:func:`missing`),
so fields later added to a view do not break the corpus, and a changed or lost one does.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import orjson

from shared.eventstore import StoredEvent
from shared.fold import FoldedMatch, fold
from shared.readmodels.projection import read_models_of
from shared.rules import Seat, replay_view

REPLAY_AUDIENCES = {"spectator": None, "A": Seat.A, "B": Seat.B}


def replay_versions(count: int) -> list[int]:
    """A few versions to replay a match of ``count`` events at: its start, quarters and end."""
    return sorted({v for v in (1, 2, 3, count // 4, count // 2, 3 * count // 4, count - 1, count) if 1 <= v <= count})


def expectation(match_id: str, stored: Sequence[StoredEvent], versions: Sequence[int],
                names: Mapping[str, str]) -> dict[str, Any]:
    """The match's final read models and its replays at ``versions``, as plain JSON values, its
    players named by ``names`` (as the export names them: the import's player directory)."""
    now = fold(FoldedMatch(match_id), stored)
    models = read_models_of(now, names)
    replays = {}
    for version in versions:
        then = fold(FoldedMatch(match_id), stored[:version])
        replays[str(version)] = {audience: {"id": match_id, "version": version,
                                            **replay_view(then.state, seat, now.state, names)}
                                 for audience, seat in REPLAY_AUDIENCES.items()}
    return _plain({
        "match_id": match_id,
        "events": len(stored),
        "status": now.status.value,
        "scores": {"A": now.state.scores[0], "B": now.state.scores[1]},
        "views": models.views,
        "summary": models.summary,
        "results": [asdict(result) for result in models.results],
        "replays": replays,
    })


def missing(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where ``actual`` lacks or differs from what ``expected`` holds (objects: only the keys expected)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where or '/'}: expected an object, got {actual!r}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}/{key}: missing")
            else:
                found += missing(value, actual[key], f"{where}/{key}")
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {len(expected)} items, got {actual!r}"]
        return [problem for index, (one, other) in enumerate(zip(expected, actual))
                for problem in missing(one, other, f"{where}/{index}")]
    return [] if expected == actual and type(expected) is type(actual) else [f"{where}: {expected!r} != {actual!r}"]


def _plain(value: Any) -> Any:
    """As JSON holds it (tuples as lists, enums as their values)."""
    return orjson.loads(orjson.dumps(value))
