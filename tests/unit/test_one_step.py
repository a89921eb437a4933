"""One step: a command is decided and its events folded only by ``shared.rules.step``.

Everything that plays a match (the service, the playthrough, the benchmarks, the bots,
the audit's re-derivation) goes through the step; stored events go through the one fold
(``shared.fold``). A raw ``decide``/``evolve`` loop anywhere else fails here, so a rules
change cannot pass the tests and skew a benchmark that folds matches its own way.
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from shared.rules import (
    INITIAL,
    CreateMatch,
    JoinMatch,
    PlayCard,
    RuleCode,
    RuleError,
    Seat,
    Step,
    TimeOut,
    clocked,
    deadline,
    decide,
    owes,
    replay,
    step,
)

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("shared", "services", "bench")
ENGINE = frozenset({"decide", "decided", "evolve"})

# Where each name may be called or imported, and why. Nowhere else, not even under shared/rules:
# the playthrough and the void-round match play through the step like everyone.
ALLOWED = {
    "decide": {
        "shared/rules/step.py",  # the step imports ``decided`` from the module
    },
    "decided": {
        "shared/rules/step.py",  # the step: the events decided, and the state they were folded into
        "shared/rules/decide.py",  # ``decide`` is its events
    },
    "evolve": {
        "shared/rules/evolve.py",  # defines it, and replay (the engine's fold of events)
        "shared/rules/decide.py",  # each fact is folded as it is recorded: the next is decided on its state
        "shared/fold.py",  # the one fold of stored events
    },
}
REEXPORTS = "shared/rules/__init__.py"  # the engine's public names: it may import both, call neither
# The audit's re-derivation needs no exception: it re-decides each command by ``step`` and
# compares the events it yields with the log (shared/audit/rederive.py).


def uses(source: str, calls_only: bool = False) -> set[tuple[str, int]]:
    """Every call or import of ``decide``/``evolve`` in ``source`` (only calls, if said): (name, line)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in ENGINE:
                found.add((name, node.lineno))
        elif calls_only:
            continue
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            rules = module.startswith("shared.rules") or (node.level and ("rules" in module or not module))
            found |= {(alias.name, node.lineno) for alias in node.names if rules and alias.name in ENGINE}
            if module.split(".")[-1] in ENGINE and (module.startswith("shared.rules") or node.level):
                found.add((module.split(".")[-1], node.lineno))
        elif isinstance(node, ast.Import):
            found |= {(alias.name.split(".")[-1], node.lineno) for alias in node.names
                      if alias.name.startswith("shared.rules.") and alias.name.split(".")[-1] in ENGINE}
    return found


def _sources() -> dict[str, str]:
    return {path.relative_to(ROOT).as_posix(): path.read_text()
            for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py"))}


def test_decide_and_evolve_are_called_only_by_the_step_and_the_one_fold():
    outside = sorted(
        f"{path}:{line} {name}" for path, source in _sources().items()
        for name, line in uses(source, calls_only=path == REEXPORTS) if path not in ALLOWED[name]
    )
    assert not outside, "a raw decide/evolve loop: apply commands with shared.rules.step\n" + "\n".join(outside)


def test_every_allowed_module_still_needs_its_exception():
    sources = _sources()
    for name, paths in ALLOWED.items():
        for path in paths:
            assert path in sources, f"{path} is gone: update the allow-list"
            assert name in {used for used, _ in uses(sources[path])}, f"{path} no longer uses {name}: drop it"


@pytest.mark.parametrize("source", [
    "from shared.rules import decide\n",
    "from shared.rules import evolve as fold_one\n",
    "from shared.rules.evolve import evolve\n",
    "from .decide import decide\n",
    "from shared.rules.decide import decided\n",
    "from . import evolve\n",
    "import shared.rules.decide\n",
    "import shared.rules as r\nr.decide(s, c)\n",
    "for e in events:\n    state = evolve(state, e)\n",
])
def test_the_guard_sees_every_way_to_reach_the_engine(source):
    assert uses(source)


def test_the_guard_lets_the_step_through():
    assert not uses("from shared.rules import step\nstate, events = step(state, command)\n")


def _joined() -> Step:
    created = step(INITIAL, CreateMatch("m", "p1", first_dealer=Seat.B), random.Random(1), 1_000)
    return step(created.state, JoinMatch("p2"), random.Random(2), 2_000)


def test_a_step_is_the_command_decided_and_its_events_folded():
    state = clocked(replay(decide(INITIAL, CreateMatch("m", "p1", first_dealer=Seat.B))), 1_000)
    events = decide(state, JoinMatch("p2"), random.Random(2))
    assert _joined() == Step(clocked(replay(events, state), 2_000), events)


def test_a_step_without_a_time_keeps_the_clock_of_the_state_it_was_applied_to():
    joined = _joined().state
    card = joined.round.hand(joined.round.turn)[0]
    played = step(joined, PlayCard(joined.round.turn, card))
    assert played.state.at == joined.at == 2_000
    assert step(joined, PlayCard(joined.round.turn, card), at_ms=5_000).state.at == 5_000


def test_a_timeout_is_judged_by_the_clock_the_state_carries():
    joined = _joined().state
    due = deadline(joined)
    with pytest.raises(RuleError) as early:
        step(joined, TimeOut(owes(joined), due - 1))
    assert early.value.code is RuleCode.NOT_DUE
    timed_out = step(joined, TimeOut(owes(joined), due), random.Random(3), due)
    assert timed_out.events[0].type == "turn_timed_out" and timed_out.state.at == due


def test_a_refused_step_records_nothing():
    joined = _joined().state
    with pytest.raises(RuleError) as refused:
        step(joined, JoinMatch("p3"))
    assert refused.value.code is RuleCode.MATCH_FULL
