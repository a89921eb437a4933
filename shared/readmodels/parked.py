"""Parked matches: the registry of matches the projector stopped on (GET /health and the CLI read it).

Why and when a match is parked is the projector's (:mod:`services.projector.parking`):

An unknown event type, a schema this code does not know, corrupt JSON, or an event the
rules cannot fold fails every job of its match the same way. Retrying it on every sweep
would only fill the logs and RQ's failed registry, so the job parks the match instead:

- the events before the poison are still projected (the views stop just before it);
- ``keys.PARKED`` records the match, the version of the first event that cannot be
  folded, the error, and the stream's length at that moment;
- the match keeps its "unprojected" mark (its events are not all projected, and the lag
  says so), but the sweep skips it until its stream grows;
- ``GET /health`` lists it and says ``"degraded"``;
- the projector's ``unpark(match_id)`` retries it at once, e.g. once code that reads the event is deployed
  (it is parked again if the event still cannot be folded).

A match whose events all fold but whose read models cannot be written (a player id no key
may hold, a view that cannot be computed) would fail every job the same way too, and stop
every rebuild: it is parked as well (see ``services.projector.catchup.failures``). Its record's
version is then the last event folded, the one its views could not be brought to, and its
error starts with "read models cannot be written". Its views are left as they were.

Only deterministic failures park a match: a Redis error, an OS error or RQ's own stop and
timeout signals are transient, and are raised as before (the mark makes sure it is redone).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

import orjson

from shared import keys
from shared.eventstore.port import system_clock
from shared.eventstore.schema import iso_from_ms


@dataclass(frozen=True)
class Poison:
    """The first event of a match that cannot be folded, and why."""

    version: int
    error: str


@dataclass(frozen=True)
class ParkedMatch:
    """A parked match: the poison and the stream's length when it was parked."""

    match: str
    version: int
    error: str
    stream_version: int
    since: str  # ISO-8601 UTC

    def retry_due(self, stream_version: int) -> bool:
        """True once the stream has grown since the match was parked."""
        return stream_version > self.stream_version

    def public(self) -> dict[str, Any]:
        """What GET /health shows of it."""
        return {"match": self.match, "version": self.version, "error": self.error, "since": self.since}


class ServedVersions(Protocol):
    """What telling a stuck match from a passed one reads: the served views' versions."""

    def generation(self) -> int: ...

    def at(self, generation: int) -> _Versions: ...


class _Versions(Protocol):
    def projected_versions(self, match_ids: list[str]) -> list[int]: ...


def parked_record(match_id: str, poison: Poison, stream_version: int) -> ParkedMatch:
    """The record of ``match_id`` parked on ``poison`` now."""
    return ParkedMatch(match_id, poison.version, poison.error, stream_version, iso_from_ms(system_clock()))


class ParkedRecords:
    """What every registry of parked matches answers from its records (``all``, ``remove``)."""

    def all(self) -> dict[str, ParkedMatch]:
        raise NotImplementedError

    def remove(self, match_id: str) -> bool:
        raise NotImplementedError

    def current(self, readmodels: ServedVersions) -> list[ParkedMatch]:
        """The records whose match is still stuck: its served views have not passed the poison.

        A match whose views moved past it (a fixed projector caught it up) is no longer
        stuck, even before the next sweep forgets its record.
        """
        return _stuck(self.all(), readmodels)

    def forget_passed(self, readmodels: ServedVersions) -> list[str]:
        """Remove the records of matches whose views moved past their poison; their ids."""
        # One read of the registry: a match parked after it is never taken for passed.
        records = self.all()
        stuck = {record.match for record in _stuck(records, readmodels)}
        passed = [match_id for match_id in records if match_id not in stuck]
        for match_id in passed:
            self.remove(match_id)
        return passed


class ParkedMatches(ParkedRecords):
    """The registry of parked matches (``keys.PARKED``) on a Redis client."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def park(self, match_id: str, poison: Poison, stream_version: int) -> ParkedMatch:
        """Record ``match_id`` as parked on ``poison``; the record."""
        record = parked_record(match_id, poison, stream_version)
        self._client.hset(keys.PARKED, match_id, orjson.dumps(asdict(record)))
        return record

    def get(self, match_id: str) -> ParkedMatch | None:
        """The record of ``match_id``; None if it is not parked."""
        raw = self._client.hget(keys.PARKED, match_id)
        return None if raw is None else ParkedMatch(**orjson.loads(raw))

    def all(self) -> dict[str, ParkedMatch]:
        """Every record, by match id."""
        records = (ParkedMatch(**orjson.loads(raw)) for raw in self._client.hvals(keys.PARKED))
        return {record.match: record for record in records}

    def remove(self, match_id: str) -> bool:
        """Forget ``match_id``'s record; True if there was one."""
        return bool(self._client.hdel(keys.PARKED, match_id))


def _stuck(records: dict[str, ParkedMatch], readmodels: ServedVersions) -> list[ParkedMatch]:
    """Those of ``records`` whose served views have not passed the poison, by match id."""
    ordered = sorted(records.values(), key=lambda record: record.match)
    served = readmodels.at(readmodels.generation())
    versions = served.projected_versions([record.match for record in ordered]) if ordered else []
    return [record for record, version in zip(ordered, versions) if version < record.version]
