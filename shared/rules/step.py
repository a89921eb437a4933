"""``step(state, command, chance) -> Step(state, events)``: one command applied to a match.

The one place a command is decided and its events folded into the state they lead to.
Everything that plays a match applies its commands here: the service's use cases, the
random playthrough, the benchmarks' mirrors of the matches they play, and a bot's search,
whose playouts (a later issue) run through this same step, so that a rules change reaches
them all at once. Stored events are folded by ``shared.fold`` (the one fold of a stream).

It is on a search's hot path: the events decided, each folded once as it was recorded (a
later fact is decided on the state the earlier ones led to), nothing more (no copy, no check).

Clock (R28): ``decide`` judges a ``TimeOut`` or an ``ExpireLobby`` against the time the
state carries, the time of its latest event. ``at_ms`` is the time the new events are
recorded at: the new state carries it (``clocked``), as a fold of the stored events would.
Without it the new state keeps the clock of ``state``: right for a caller whose events get
their time elsewhere (the service: the store stamps them, and its fold sets the clock).
"""
from __future__ import annotations

import random
from typing import NamedTuple

from .chance import Chance
from .clock import clocked
from .decide import Command, decided
from .events import Event
from .state import MatchState


class Step(NamedTuple):
    """What one command did: the state it led to, and the events it recorded, oldest first."""

    state: MatchState
    events: list[Event]


def step(
    state: MatchState, command: Command, chance: Chance | random.Random | None = None, at_ms: int | None = None,
) -> Step:
    """Decide ``command`` on ``state`` and fold its events; RuleError (nothing recorded) if refused.

    ``chance``: where a deal the command triggers comes from (see ``decide``); ``at_ms``: the
    time the events are recorded at (epoch ms), the new state's clock (see the module doc).
    """
    state, events = decided(state, command, chance)
    return Step(state if at_ms is None else clocked(state, at_ms), events)
