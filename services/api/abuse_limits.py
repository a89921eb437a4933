"""The API's abuse limits (API.md "Limits"): what is counted against whom, and when it is given back.

Per client address (:mod:`.client_address`): registrations, login attempts (also counted per
name tried), joins, live streams open at once (a match's or a player's), and reads of a
match's history (replays, event logs: each costs a read and a fold, and needs no token).
Per player: matches created, joins, matches waiting for an opponent, actions, and
unfinished matches (``MAX_PLAYING``: waiting or playing, refused 409 ``TOO_MANY_MATCHES``
rather than 429, since waiting does not help: finishing does). The built-in bot is exempt
from the per-player ones: it only answers invitations.

A limited request records nothing: its units are taken before the use case runs, and the
units of what it would record (a player, a match) are given back if the use case refuses,
so only what was made counts. Actions count every attempt: that limit is a pace. A waiting
match's unit is given back when the match is joined or cancelled, and lapses with the
lobby (it is held ``LOBBY_SECONDS``) if nobody comes. Joins count every attempt, like
actions (a wrong invite too). An unfinished match's unit is named by the match id, taken
atomically before the create or join appends (so a burst of joins cannot pass the cap),
given back by whatever ends the match (an action, the timer's timeout or expiry), and
when a player meets the cap their units are checked against the matches themselves, so
a unit whose match ended while the give-back failed (a process died between the two)
frees itself; else it lapses after ``PLAYING_LEASE_MS``. Counting is :mod:`shared.limits`, in
Redis, shared by every API process; ``RATE_LIMITS=off`` counts nothing at all.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import redis
from flask import g
from werkzeug.wrappers import Response

from shared.config import LimitSettings
from shared.limits import Counters, Limit, LimitedError, Verdict
from shared.observability import metrics
from shared.rules import SEATS, MatchState, Seat, Status

from .app.application_errors import TooManyMatchesError

HOUR_MS = 3_600_000
MINUTE_MS = 60_000
PLAYING_LEASE_MS = 30 * 24 * HOUR_MS  # an unfinished match's unit lapses after this, should its give-back be lost
STREAM_LEASE_MS = 60_000  # an open stream's unit lapses this long after its last renewal ...
RENEW_EVERY_SECONDS = 20.0  # ... renewed as the stream sends, at most this often (a keep-alive comes every 15 s)

log = logging.getLogger(__name__)

Ended = Callable[[str], bool]  # whether the match of this id is over for the player (a unit to give back)


class Limiter:
    def __init__(self, counters: Counters | None, settings: LimitSettings, lobby_seconds: int, exempt: str) -> None:
        self._counters = counters if settings.enabled else None
        self._exempt = exempt  # the built-in bot's player id
        self.registrations = Limit("registrations", settings.registrations_per_hour, HOUR_MS)
        self.streams = Limit("streams", settings.streams_per_client, STREAM_LEASE_MS)
        self.matches = Limit("matches", settings.matches_per_hour, HOUR_MS)
        self.waiting = Limit("waiting_matches", settings.waiting_matches, lobby_seconds * 1000)
        self.joins = Limit("joins", settings.joins_per_hour, HOUR_MS)
        self.client_joins = Limit("client_joins", settings.client_joins_per_hour, HOUR_MS)
        self.playing = Limit("playing", settings.max_playing, PLAYING_LEASE_MS)
        pace = settings.actions_per_second  # a burst of actions_burst, won back at this many a second
        burst_ms = int(settings.actions_burst / pace * 1000) if pace > 0 else 0
        self.actions = Limit("actions", settings.actions_burst if burst_ms else 0, burst_ms)
        self.replays = Limit("replays", settings.replays_per_minute, MINUTE_MS)
        self.event_reads = Limit("events", settings.event_reads_per_minute, MINUTE_MS)
        self.credentials = Limit("credentials", settings.credentials_per_minute, MINUTE_MS)
        self.logins = Limit("logins", settings.logins_per_hour, HOUR_MS)
        self.name_logins = Limit("name_logins", settings.name_logins_per_hour, HOUR_MS)

    @contextmanager
    def registering(self, address: str) -> Iterator[None]:
        """Around a registration from ``address``: refused past the limit, not counted if it fails."""
        with self._holding(self.registrations, address):
            yield

    @contextmanager
    def creating(self, player_id: str, match_id: str, waits: bool, ended: Ended) -> Iterator[None]:
        """Around the creation of ``match_id`` (``waits``: for an opponent, so one of the player's waiting);
        ``ended`` tells whether a match the player holds a unit of has ended (or never seated them)."""
        exempt = player_id == self._exempt
        matches, waiting = (None, None) if exempt else (self.matches, self.waiting if waits else None)
        with self._holding(matches, player_id), self._holding(waiting, player_id, match_id), \
                self._seating(player_id, match_id, ended):
            yield

    @contextmanager
    def joining(self, player_id: str, address: str, match_id: str, ended: Ended) -> Iterator[None]:
        """Around a join of ``match_id``: every attempt counts (player and address), and the match
        counts among the player's unfinished ones unless the join is refused."""
        if player_id != self._exempt:
            self._take(self.joins, player_id)
            self._take(self.client_joins, address)
        with self._seating(player_id, match_id, ended):
            yield

    @contextmanager
    def pairing(self, player_ids: tuple[str, str], match_id: str, ended: Callable[[str], Ended]) -> Iterator[None]:
        """Around the creation of a paired match (or a rematch): it counts among both players'
        unfinished matches; TooManyMatchesError if either sits in ``MAX_PLAYING`` already."""
        first, second = player_ids
        with self._seating(first, match_id, ended(first)), self._seating(second, match_id, ended(second)):
            yield

    def at_cap(self, player_id: str, ended: Ended) -> bool:
        """Whether the player sits in ``MAX_PLAYING`` unfinished matches (ended ones given back first)."""
        if player_id == self._exempt or self._counters is None or self.playing.count <= 0:
            return False
        held = self._counters.held(self.playing, player_id)
        if len(held) >= self.playing.count:
            self._healed(player_id, ended)
            held = self._counters.held(self.playing, player_id)
        return len(held) >= self.playing.count

    def ended(self, match_id: str, state: MatchState) -> None:
        """After an action, a timeout or an expiry: a match that is over no longer counts for its players."""
        if state.status.over:
            for seat in SEATS:
                seated = state.players[seat.index]
                if seated is not None:
                    _give_back(self._counters, self.playing, seated.id, match_id)

    def act(self, player_id: str) -> None:
        """Count one action of the player; LimitedError past their pace."""
        if player_id != self._exempt:
            self._take(self.actions, player_id)

    def replay(self, address: str) -> None:
        """Count one replay read from ``address``; LimitedError past its share."""
        self._take(self.replays, address)

    def read_events(self, address: str) -> None:
        """Count one read of a match's event log from ``address``; LimitedError past its share."""
        self._take(self.event_reads, address)

    def issue_credential(self, player_id: str) -> None:
        """Count one stream ticket or token rotation of the player (each a key, or a message to every
        process); LimitedError past their share. The bot is exempt: its streams reconnect."""
        if player_id != self._exempt:
            self._take(self.credentials, player_id)

    def log_in(self, address: str, name: str) -> None:
        """Count one login attempt from ``address`` for ``name``; LimitedError past either share.

        Every attempt counts, a good password too: what guessing needs is attempts. The name is
        counted by a digest of its comparison form (any script, and the same for its spellings)."""
        self._take(self.logins, address)
        self._take(self.name_logins, hashlib.sha256(name.encode()).hexdigest()[:32])

    def left_lobby(self, match_id: str, state: MatchState) -> None:
        """After a join or a cancel: a match no longer waiting stops counting among its creator's."""
        creator = state.players[Seat.A.index]
        if creator is not None and state.status is not Status.WAITING:
            _give_back(self._counters, self.waiting, creator.id, match_id)

    def stream(self, address: str) -> _Lease:
        """The unit of a live stream opened from ``address``; LimitedError past the address's share."""
        return _Lease(self._counters, self._take(self.streams, address))

    @contextmanager
    def _seating(self, player_id: str, match_id: str, ended: Ended) -> Iterator[None]:
        """Hold one of the player's unfinished matches (``match_id``) around a create or join."""
        if player_id == self._exempt or self._counters is None or self._seated(player_id, match_id):
            yield  # a unit already held is not this attempt's to give back (a seated player joining again)
            return
        verdict = self._counters.take(self.playing, player_id, match_id)
        if not verdict.allowed and self._healed(player_id, ended):
            verdict = self._counters.take(self.playing, player_id, match_id)
        if not verdict.allowed:
            metrics.record_limit(self.playing.name)
            raise TooManyMatchesError(player_id)
        try:
            yield
        except BaseException:
            _give_back(self._counters, self.playing, player_id, match_id)
            raise

    def _seated(self, player_id: str, match_id: str) -> bool:
        """Whether the player holds ``match_id``'s unit already (created or joined it before)."""
        return match_id in self._counters.held(self.playing, player_id)

    def _healed(self, player_id: str, ended: Ended) -> bool:
        """Give back the player's units of matches that have ended; True if any was."""
        gone = [unit for unit in self._counters.held(self.playing, player_id) if ended(unit)]
        for unit in gone:
            _give_back(self._counters, self.playing, player_id, unit)
        return bool(gone)

    @contextmanager
    def _holding(self, limit: Limit | None, subject: str, unit: str | None = None) -> Iterator[None]:
        verdict = None if limit is None else self._take(limit, subject, unit)
        try:
            yield
        except BaseException:
            if verdict is not None:
                _give_back(self._counters, limit, subject, verdict.unit)
            raise

    def _take(self, limit: Limit, subject: str, unit: str | None = None) -> Verdict | None:
        if self._counters is None:
            return None
        verdict = self._counters.take(limit, subject, unit)
        if not verdict.allowed:
            metrics.record_limit(limit.name)
            raise LimitedError(verdict)
        g.setdefault("limit_verdicts", []).append(verdict)  # its RateLimit headers go on the answer
        return verdict


class _Lease:
    """A unit held for as long as something lasts: renewed while a stream sends, given back at its end."""

    def __init__(self, counters: Counters | None, verdict: Verdict | None) -> None:
        self._counters, self._verdict = counters, verdict
        self._renewed = time.monotonic()

    def hold(self, response: Response) -> Response:
        """``response`` holds the unit while it is sent, and gives it back once closed."""
        if self._verdict is not None:
            response.response = self._renewing(response.response)
            response.call_on_close(self.give_back)
        return response

    def give_back(self) -> None:
        if self._verdict is not None:
            _give_back(self._counters, self._verdict.limit, self._verdict.subject, self._verdict.unit)

    def _renewing(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        try:
            for chunk in chunks:
                if time.monotonic() - self._renewed >= RENEW_EVERY_SECONDS:
                    self._renew()
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def _renew(self) -> None:
        self._renewed = time.monotonic()
        try:
            self._counters.renew(self._verdict)
        except redis.RedisError as error:  # the stream itself will meet it, or carry on
            log.warning("could not renew a %s unit: %s", self._verdict.limit.name, error)


def _give_back(counters: Counters | None, limit: Limit, subject: str, unit: str) -> None:
    """Give ``unit`` back; if Redis cannot take it now, it lapses by itself (what was recorded stands)."""
    if counters is None:
        return
    try:
        counters.give_back(limit, subject, unit)
    except redis.RedisError as error:
        log.warning("could not give back a %s unit: %s", limit.name, error)


def rate_limit_headers(response: Response) -> Response:
    """After a request: the RateLimit headers of the limit it came closest to (a refusal carries its own)."""
    verdicts = g.pop("limit_verdicts", None)
    if verdicts and "RateLimit-Limit" not in response.headers:
        response.headers.update(headers(min(verdicts, key=lambda verdict: verdict.remaining)))
    return response


def headers(verdict: Verdict) -> dict[str, str]:
    """The RateLimit headers of ``verdict``, and Retry-After when it refused."""
    sent = {"RateLimit-Limit": str(verdict.limit.count), "RateLimit-Remaining": str(verdict.remaining),
            "RateLimit-Reset": str(verdict.reset_seconds)}
    return sent if verdict.allowed else {"Retry-After": str(verdict.reset_seconds), **sent}


__all__ = ["LimitedError", "Limiter", "headers", "rate_limit_headers"]
