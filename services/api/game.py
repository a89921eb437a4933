"""The command side's use cases: create, join, act. Parse nothing, render nothing.

Each use case loads the match (a per-process cache plus the events after it), asks the
rules engine to ``decide``, and appends the events with the version it decided on. A
concurrent append makes the append fail; without an ``If-Match`` the use case reloads and
decides again, so a client only sees a conflict when it asked to.

An action decides on the cached state without reading the stream: the append's version
check proves that state current. Answers given without an append (a refusal, "not seated",
a stale If-Match) are only given after reading the stream.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from threading import Lock
from typing import Any

import orjson

from shared.codec import decode, encode
from shared.eventstore import (
    AppendToken,
    ConcurrencyError,
    DuplicateAppendError,
    EventStore,
    NewEvent,
    StoredEvent,
    TokenRecord,
)
from shared.eventstore.redis_store import Appended
from shared.ids import new_id
from shared.rules import (
    INITIAL,
    CreateMatch,
    Event,
    JoinMatch,
    MatchState,
    RuleCode,
    RuleError,
    Seat,
    Status,
    command_for,
    decide,
    evolve,
)
from shared.rules.chance import Chance, SeededChance
from shared.seeds import Seeds

from .errors import ApiError, not_found
from .players import Player

_RETRIES = 20  # concurrent appends to one match are rare and short: retry, don't fail


@dataclass(frozen=True)
class Recorded:
    """What a use case recorded: the match as it now stands and the new stored events."""

    match_id: str
    version: int
    state: MatchState
    events: list[StoredEvent]
    seat: Seat | None


class StateCache:
    """Recently used match states by version: a command reads only the events it has not folded."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._items: OrderedDict[str, tuple[int, MatchState]] = OrderedDict()
        self._lock = Lock()

    def get(self, match_id: str) -> tuple[int, MatchState]:
        """The cached version and state of the match; (0, INITIAL) if none is cached."""
        with self._lock:
            item = self._items.get(match_id)
            if item is not None:
                self._items.move_to_end(match_id)
            return item or (0, INITIAL)

    def put(self, match_id: str, version: int, state: MatchState) -> None:
        with self._lock:
            if version >= self._items.get(match_id, (0, INITIAL))[0]:
                self._items[match_id] = (version, state)
                self._items.move_to_end(match_id)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


class MatchService:
    def __init__(
        self, store: EventStore, notify: Callable[[str], None], seeds: Seeds, cache: StateCache | None = None,
    ) -> None:
        self._store = store
        self._notify = notify  # enqueues the projector's catch-up job
        self._seeds = seeds
        self._cache = cache or StateCache()
        self._chances: dict[str, Chance] = {}  # seeds never change: read each once

    def _chance(self, match_id: str) -> Chance:
        """The match's seeded chance: every deal of the match is derived from its seed."""
        chance = self._chances.get(match_id)
        if chance is None:
            seed = self._seeds.get(match_id)
            if seed is None:  # e.g. imported without its seed: dealing at random would break the proof
                raise ApiError(409, "SEED_UNAVAILABLE",
                               "This server does not hold the seed this match deals from; it cannot be played here.")
            chance = self._remember_chance(match_id, SeededChance(seed))
        return chance

    def _remember_chance(self, match_id: str, chance: Chance) -> Chance:
        if len(self._chances) > 16_384:
            self._chances.clear()
        self._chances[match_id] = chance
        return chance

    def load(self, match_id: str) -> tuple[int, MatchState]:
        """The match's latest version and state."""
        version, state = self._cache.get(match_id)
        for stored in self._store.read(match_id, after=version):
            state, version = evolve(state, decode(stored)), stored.version
        self._cache.put(match_id, version, state)
        return version, state

    def create(self, player: Player, options: Mapping[str, Any], opponent: Player | None = None) -> Recorded:
        """A new match with ``player`` in seat A (and ``opponent`` seated in B at once)."""
        if opponent is not None and opponent.id == player.id:
            raise ApiError(409, "ALREADY_SEATED", "You cannot play against yourself.")
        match_id = new_id()
        command = CreateMatch(match_id, player.id, player.name, **options)
        chance = SeededChance.new()
        events = decide(INITIAL, command, chance)
        self._seeds.put(match_id, chance.seed)  # before the match exists: it deals from it
        self._remember_chance(match_id, chance)  # the join and first moves here need not read it back
        created = self._record(match_id, 0, INITIAL, events, None, Seat.A)
        if opponent is None:
            return created
        joined = self.join(match_id, opponent)
        return Recorded(match_id, joined.version, joined.state, created.events + joined.events, Seat.A)

    def join(self, match_id: str, player: Player) -> Recorded:
        for _ in range(_RETRIES):
            version, state = self._existing(match_id)
            events = decide(state, JoinMatch(player.id, player.name), self._chance(match_id))
            try:
                return self._record(match_id, version, state, events, None, Seat.B)
            except ConcurrencyError:
                continue
        raise _busy()

    def act(
        self, match_id: str, player: Player, action: Mapping[str, Any],
        if_match: int | None = None, idempotency_key: str | None = None,
    ) -> Recorded:
        """Apply one player action; RuleError, ApiError (403/412/422) or the recorded events."""
        token = self._token(player, action, idempotency_key)
        version, state = self._cache.get(match_id)
        fresh = state.status is Status.NEW  # nothing cached: read the stream
        for _ in range(_RETRIES):
            if fresh:
                version, state = self._existing(match_id)
            seat = state.seat_of(player.id)
            stale = seat is None or (if_match is not None and if_match != version)
            if stale and not fresh:
                fresh = True  # the cache may be behind: decide only on the stream as it is
                continue
            if seat is None:
                raise ApiError(403, "NOT_A_PLAYER", "You are not seated in this match.")
            if token and (earlier := self._store.token(match_id, token.key)):
                return self._replayed(match_id, seat, token, earlier)
            if if_match is not None and if_match != version:
                raise _stale(if_match, version)
            try:
                events = decide(state, command_for(seat, action), self._chance(match_id))
            except RuleError as refusal:
                if not fresh:
                    fresh = True  # refused by the cached state: ask the current one
                    continue
                raise self._remembered(match_id, seat, token, refusal) from None
            try:
                return self._record(match_id, version, state, events, token, seat)
            except ConcurrencyError as conflict:
                if if_match is not None:
                    raise _stale(if_match, conflict.actual) from None
                fresh = True
            except DuplicateAppendError as duplicate:  # the same key raced itself
                return self._replayed(match_id, seat, token, duplicate.record)
        raise _busy()

    def _existing(self, match_id: str) -> tuple[int, MatchState]:
        version, state = self.load(match_id)
        if state.status is Status.NEW:
            raise not_found()
        return version, state

    def _record(
        self, match_id: str, version: int, state: MatchState, events: list[Event],
        token: AppendToken | None, seat: Seat | None,
    ) -> Recorded:
        appended = self._append(match_id, [encode(e) for e in events], version, token)
        if appended.ask_catch_up:  # else a queued catch-up that has not read yet folds these too
            self._notify(match_id)
        for event in events:
            state = evolve(state, event)
        self._cache.put(match_id, appended.version, state)
        return Recorded(match_id, appended.version, state, appended.events, seat)

    def _append(self, match_id: str, events: list[NewEvent], version: int, token: AppendToken | None) -> Appended:
        """Append; the Redis store returns what it stored, any other store is read back."""
        if append_events := getattr(self._store, "append_events", None):
            return append_events(match_id, events, version, token)
        new_version = self._store.append(match_id, events, version, token)
        return Appended(new_version, self._store.read(match_id, after=version, limit=new_version - version), True)

    def _remembered(self, match_id: str, seat: Seat, token: AppendToken | None, refusal: RuleError) -> Exception:
        """The refusal to raise, remembered under the request's token so a retry gets it too."""
        if token is None:
            return refusal
        answer = orjson.dumps({"code": refusal.code.value, "message": refusal.message}).decode()
        earlier = self._store.remember_refusal(match_id, token, answer)
        if earlier is None:
            return refusal
        try:  # the same key raced itself and the other request answered first
            self._replayed(match_id, seat, token, earlier)
        except (ApiError, RuleError) as first_answer:
            return first_answer
        return ApiError(409, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key is already in use; retry it.")

    def _replayed(self, match_id: str, seat: Seat, token: AppendToken, earlier: TokenRecord) -> Recorded:
        """The first response of an idempotent retry: its events, or its refusal again."""
        if earlier.fingerprint != token.fingerprint:
            raise ApiError(
                422, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used with another request.",
            )
        if earlier.refusal is not None:
            answer = orjson.loads(earlier.refusal)
            raise RuleError(RuleCode(answer["code"]), answer["message"])
        first, last = earlier.first_version, earlier.last_version
        stored = self._store.read(match_id, after=first - 1, limit=last - first + 1)
        _, state = self.load(match_id)
        return Recorded(match_id, last, state, stored, seat)

    @staticmethod
    def _token(player: Player, action: Mapping[str, Any], key: str | None) -> AppendToken | None:
        if key is None:
            return None
        scope = hashlib.sha256(f"{player.id}\x00{key}".encode()).hexdigest()
        body = hashlib.sha256(orjson.dumps(dict(action), option=orjson.OPT_SORT_KEYS)).hexdigest()
        return AppendToken(scope, body)


def _stale(expected: int, actual: int) -> ApiError:
    return ApiError(
        412, "VERSION_CONFLICT", f"The match moved on: you acted on version {expected}, it is at {actual}.",
        version=actual,
    )


def _busy() -> ApiError:
    return ApiError(503, "BUSY", "The match is too busy right now; try again.")
