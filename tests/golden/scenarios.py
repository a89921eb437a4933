"""The matches the golden corpus records: each played for real through the command side's use cases.

A :class:`Table` is the command service on an in-memory store whose clock steps on with
every append, so the recorded times, deadlines and timeouts are ones a server could have
written. Each scenario plays one match to one ending (won on points, resigned, aborted,
abandoned, cancelled, expired, still waiting or still being played) with its own seed: the
seed chooses the players' actions and, through :func:`seeded_deals`, the match's secret seed
(which the service would draw at random), so a recording is the same every time.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from services.api.app import Matches, act, create, expire, join, latest, time_out
from services.api.app.invites import invite_of
from services.api.players import Player
from shared.eventstore import InMemoryEventStore
from shared.rules import DECK, Rules, deadline, legal_actions
from shared.rules.chance import SeededChance
from shared.rules.playthrough import random_action
from shared.rules.variants import RaiseLadder, RedealProposer, RemainderReject
from shared.seeds import InMemorySeeds

T0 = 1_760_000_000_000  # epoch ms of the first recorded event
STEP_MS = 1_700  # how far the clock moves on between two appends
LOBBY_SECONDS = 600
PLAYERS = [Player("alice-id", "alice"), Player("bob-id", "bob"), Player("carol-7", "Carol"),
           Player("dorte-id", "Dörte"), Player("eino_2", "Eino")]


@dataclass
class SteppingClock:
    """The store's clock: each append is stamped ``STEP_MS`` after the one before."""

    now: int = T0

    def __call__(self) -> int:
        self.now += STEP_MS
        return self.now


@dataclass
class Table:
    """The command side on an in-memory store, for one recording."""

    clock: SteppingClock = field(default_factory=SteppingClock)

    def __post_init__(self) -> None:
        self.store = InMemoryEventStore(self.clock)
        self.matches = Matches(self.store, lambda match_id: None, InMemorySeeds())


@dataclass(frozen=True)
class Scenario:
    name: str
    seed: int
    play: Callable[[Table, str, random.Random], None]  # plays the match named by the id
    ending: str  # what the views say ended it (``ended_by``), or the status of a match not over


def _pair(rng: random.Random) -> tuple[Player, Player]:
    first, second = rng.sample(PLAYERS, 2)
    return first, second


def _created(table: Table, match_id: str, rng: random.Random, rules: Rules = Rules(), **options: Any) -> tuple:
    creator, joiner = _pair(rng)
    create(table.matches, creator, {"rules": rules, "first_dealer": None, **options}, match_id=match_id)
    return creator, joiner


def _started(table: Table, match_id: str, rng: random.Random, rules: Rules = Rules(), **options: Any) -> dict:
    """The match created and joined: its players by seat."""
    creator, joiner = _created(table, match_id, rng, rules, **options)
    custom = latest(table.matches, match_id).state.custom
    invite = invite_of(table.matches, match_id) if options.get("private") else None
    join(table.matches, match_id, joiner, accept_custom=custom, invite=invite)
    return {"A": creator, "B": joiner}


def _play(table: Table, match_id: str, players: dict, rng: random.Random, actions: int | None = None) -> None:
    """Random legal actions until the match is over (or ``actions`` were taken)."""
    taken = 0
    while actions is None or taken < actions:
        state = latest(table.matches, match_id).state
        if state.status.over:
            return
        action = random_action(state, rng)
        assert action in legal_actions(state, action.seat)
        act(table.matches, match_id, players[action.seat.value], action.body())
        taken += 1


def _time_out(table: Table, match_id: str) -> None:
    """Let the clock pass the deadline of whoever owes a decision, and have the timer record it."""
    table.clock.now = deadline(latest(table.matches, match_id).state) + 250
    time_out(table.matches, match_id, table.clock.now)


def won_on_points(rules: Rules = Rules(), **options: Any) -> Callable[[Table, str, random.Random], None]:
    def play(table: Table, match_id: str, rng: random.Random) -> None:
        _play(table, match_id, _started(table, match_id, rng, rules, **options), rng)
    return play


def resigned(table: Table, match_id: str, rng: random.Random) -> None:
    players = _started(table, match_id, rng)
    _play(table, match_id, players, rng, actions=rng.randrange(6, 20))
    if not latest(table.matches, match_id).state.status.over:  # else the seed's ending says so
        act(table.matches, match_id, players[rng.choice("AB")], {"type": "resign"})


def aborted(table: Table, match_id: str, rng: random.Random) -> None:
    """A seat resigns before round 1 is complete: nothing was played to rank anyone by."""
    players = _started(table, match_id, rng)
    _play(table, match_id, players, rng, actions=1)
    act(table.matches, match_id, players["B"], {"type": "resign"})


def abandoned(table: Table, match_id: str, rng: random.Random) -> None:
    """Nobody acts: the timer's timeouts run until a seat has timed out twice in a row (R30)."""
    players = _started(table, match_id, rng)
    _play(table, match_id, players, rng, actions=rng.randrange(0, 12))
    while not latest(table.matches, match_id).state.status.over:
        _time_out(table, match_id)


def timed_out_then_won(table: Table, match_id: str, rng: random.Random) -> None:
    players = _started(table, match_id, rng)
    for _ in range(3):
        _play(table, match_id, players, rng, actions=rng.randrange(5, 15))
        if not latest(table.matches, match_id).state.status.over:
            _time_out(table, match_id)
    _play(table, match_id, players, rng)


def cancelled(table: Table, match_id: str, rng: random.Random) -> None:
    creator, _ = _created(table, match_id, rng)
    act(table.matches, match_id, creator, {"type": "cancel"})


def expired(table: Table, match_id: str, rng: random.Random) -> None:
    _created(table, match_id, rng)
    table.clock.now += LOBBY_SECONDS * 1000 + 5_000
    expire(table.matches, match_id, table.clock.now, LOBBY_SECONDS)


def waiting(table: Table, match_id: str, rng: random.Random) -> None:
    _created(table, match_id, rng, private=rng.random() < 0.5)


def being_played(table: Table, match_id: str, rng: random.Random) -> None:
    _play(table, match_id, _started(table, match_id, rng), rng, actions=rng.randrange(6, 20))


def custom_decks(table: Table, match_id: str, rng: random.Random) -> None:
    decks = [list(DECK) for _ in range(2)]
    for deck in decks:
        rng.shuffle(deck)
    players = _started(table, match_id, rng, decks=tuple(tuple(deck) for deck in decks))
    _play(table, match_id, players, rng)


_EVEN = Rules(raise_ladder=RaiseLadder.EVEN)
_PREVIOUS = Rules(remainder_reject=RemainderReject.PREVIOUS_VALUE, alternate_requests=False)
_NO_REDEAL = Rules(redeals_per_round=0, redeal_proposer=RedealProposer.NON_DEALER)
SCENARIOS = [
    Scenario("points-default-rules", 101, won_on_points(), "score"),
    Scenario("points-default-rules-2", 102, won_on_points(), "score"),
    Scenario("points-default-rules-3", 103, won_on_points(), "score"),
    Scenario("points-even-ladder", 104, won_on_points(_EVEN), "score"),
    Scenario("points-previous-value-remainder", 105, won_on_points(_PREVIOUS), "score"),
    Scenario("points-no-redeal", 106, won_on_points(_NO_REDEAL), "score"),
    Scenario("points-target-6", 107, won_on_points(Rules(target=6, turn_seconds=30)), "score"),
    Scenario("points-private", 108, won_on_points(private=True), "score"),
    Scenario("points-private-even-ladder", 109, won_on_points(_EVEN, private=True), "score"),
    Scenario("custom-start-scores", 110, won_on_points(start_scores=(9, 10)), "score"),
    Scenario("custom-short-clock-small-target", 111, won_on_points(Rules(target=3, turn_seconds=10)), "score"),
    Scenario("custom-decks", 112, custom_decks, "score"),
    Scenario("resigned", 113, resigned, "resigned"),
    Scenario("resigned-2", 214, resigned, "resigned"),
    Scenario("aborted", 115, aborted, "aborted"),
    Scenario("abandoned", 116, abandoned, "abandoned"),
    Scenario("abandoned-2", 117, abandoned, "abandoned"),
    Scenario("timed-out-then-won", 118, timed_out_then_won, "score"),
    Scenario("cancelled-by-creator", 119, cancelled, "cancelled"),
    Scenario("expired-in-the-lobby", 120, expired, "expired"),
    Scenario("waiting", 121, waiting, "waiting"),
    Scenario("being-played", 322, being_played, "playing"),
    Scenario("being-played-2", 123, being_played, "playing"),
]


@contextmanager
def seeded_deals(rng: random.Random) -> Iterator[None]:
    """New matches draw their secret seed from ``rng`` instead of the system's randomness."""
    drawn = SeededChance.__dict__["new"]
    SeededChance.new = classmethod(lambda cls: cls(rng.randbytes(32).hex()))
    try:
        yield
    finally:
        SeededChance.new = drawn


def play(scenario: Scenario, table: Table, match_id: str) -> None:
    """Play ``scenario`` at ``table`` as match ``match_id``, the same way every time."""
    rng = random.Random(scenario.seed)
    with seeded_deals(rng):
        scenario.play(table, match_id, rng)
