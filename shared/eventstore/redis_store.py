"""The event store on Redis Streams: one stream per match, gapless versions.

Layout (key names come from :mod:`shared.keys` only):

- ``truc:{m:<id>}:events`` - a stream whose entry ``n-0`` is the event of version
  ``n``, with fields ``t`` (type), ``s`` (schema version), ``at`` (epoch ms),
  ``d`` (data, JSON bytes) and ``h`` (its hash-chain link, see ``chain.chain_hash``).
  Streams are NEVER trimmed (no XTRIM, no MAXLEN): the stream is the only source of
  truth, and XLEN *is* the current version.
- ``truc:{m:<id>}:unprojected`` - the version of the latest append, set by the
  append itself; the projector clears it once it has folded that far
  (:mod:`shared.eventstore.redis_marks`).
- ``truc:{m:<id>}:catchup`` - set by an append that should ask for a catch-up job,
  cleared by the next read of the stream (the job's). An append that finds it set needs
  no job: one is queued that has not read yet. Under load this folds many appends into
  one job instead of one job each; idle, every append still gets its own.

Why a Lua append rather than WATCH/MULTI/EXEC: both let exactly one racer win,
but the script is one round trip (~8k appends/s for one client, measured) where
WATCH costs three (~2.9k/s). Every key of the script shares the match's hash tag
and is declared in KEYS, so it runs unchanged on Redis Cluster (the scripts live in
:mod:`shared.eventstore.lua`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from shared import keys
from shared.connect import is_cluster_client
from shared.eventstore import lua
from shared.eventstore.alongside import Alongside, send, write
from shared.eventstore.append_tokens import REFUSALS_KEPT, REFUSALS_KEPT_SECONDS, AppendToken, TokenRecord
from shared.eventstore.chain import genesis_hash, link_hashes
from shared.eventstore.durable import Acknowledgement, run_and_wait
from shared.eventstore.entries import text as _text
from shared.eventstore.entries import to_stored as _to_stored
from shared.eventstore.port import (
    Appended,
    Clock,
    NewEvent,
    StoredEvent,
    check_append,
    check_import,
    check_read,
    decode_data,
    encode_data,
    system_clock,
)
from shared.eventstore.redis_marks import RedisProjectionMarks
from shared.eventstore.store_errors import ConcurrencyError, DuplicateAppendError, NotDurableError

MASTER_ONLY = Acknowledgement()  # the default: answered once the master has it
# How long an append's catch-up request stands for the appends after it. A catch-up job
# normally clears it within milliseconds; if its enqueue was lost, the next append after
# this asks again (and the worker's sweep covers a match nobody appends to any more).
CATCH_UP_FLAG_MS = 2000


class RedisEventStore(RedisProjectionMarks):
    """The :class:`~shared.eventstore.port.EventStore` contract on Redis (or a Redis Cluster).

    ``client`` is a ``redis.Redis``, ``redis.cluster.RedisCluster`` or a fakeredis
    client, with ``decode_responses`` either way. With ``ack.replicas``, an append (and the
    replay of its token) raises NotDurableError unless that many replicas confirm it.
    Its projector's marks are :class:`~shared.eventstore.redis_marks.RedisProjectionMarks`'.
    """

    def __init__(self, client: Any, clock: Clock = system_clock, ack: Acknowledgement = MASTER_ONLY) -> None:
        super().__init__(client)
        self._clock, self._ack = clock, ack
        # What rides an append goes in its round trip on one server that answers without waiting;
        # on a cluster (other slots) or when a replica must confirm the append, in round trips of its own.
        self._alone = ack.waits or is_cluster_client(client)
        # The chain link of each match's latest append by this process: the next append
        # by this process links to it without reading it back (events never change).
        self._heads: dict[str, tuple[int, str]] = {}

    @property
    def rides_along(self) -> bool:
        """Whether what rides an append (``alongside``) goes in the append's own round trip."""
        return not self._alone

    def append(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None,
    ) -> int:
        """Append if the stream is at ``expected_version``; return the new version.

        One atomic script: version check, XADD of every event, and the
        "unprojected" mark, so no event can exist without its mark.
        """
        return self.append_events(match_id, events, expected_version, token).version

    def append_events(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None, alongside: Alongside | None = None,
    ) -> Appended:
        """``append``, returning the events as stored (no read back) and whether to ask for a catch-up;
        with ``alongside``, the caller's writes before it and reads after it in its round trip."""
        check_append(events, expected_version)
        at = self._clock()
        args: list[Any] = [expected_version, at]
        args += [token.key, token.fingerprint] if token else ["", ""]
        args += [CATCH_UP_FLAG_MS, match_id, keys.MATCHES_APPENDED]
        encoded = [(event.type, event.schema_version, encode_data(event.data)) for event in events]
        links = link_hashes(self._head(match_id, expected_version), expected_version + 1, encoded, at)
        for (type_, schema, data), link in zip(encoded, links):
            args += [type_, schema, data, link]
        script_keys = [
            keys.match_events(match_id), keys.match_unprojected(match_id), keys.match_tokens(match_id),
            keys.match_catch_up(match_id), keys.match_refusals(match_id),
            keys.unprojected_index(match_id, self._per_slot),
        ]
        (status, value, *ask), acked, read = self._run_alongside(lua.APPEND, script_keys, args, alongside)
        if int(status) == 2:  # a replica must hold the first append before its retry is answered
            raise DuplicateAppendError(self.token(match_id, token.key) if self._ack.waits
                                       else TokenRecord.decode(value))
        if not int(status):
            raise ConcurrencyError(expected_version, int(value), match_id)
        if len(self._heads) > 65_536:
            self._heads.clear()
        self._heads[match_id] = (int(value), links[-1])
        stored = [
            StoredEvent(match_id, version, type_, schema, at, decode_data(data), link)
            for version, ((type_, schema, data), link) in enumerate(zip(encoded, links), expected_version + 1)
        ]
        appended = Appended(int(value), stored, bool(int(ask[0])), read)
        if acked < self._ack.replicas:
            raise NotDurableError(match_id, appended)
        return appended

    def _run_alongside(
        self, script: lua.Script, script_keys: list[str], args: list[Any], alongside: Alongside | None,
    ) -> tuple[Any, int, tuple[Any, ...]]:
        """``_run``, with the caller's writes before the script and reads after it (see :mod:`.alongside`);
        an append a replica must confirm sends them in round trips of their own."""
        if alongside is None:
            return (*self._run(script, script_keys, args), ())
        if self._alone:
            write(self._client, alongside.before)
            answer, acked = self._run(script, script_keys, args)
            return answer, acked, send(self._client, alongside.after)
        answer, read = script.pipelined(self._client, script_keys, args, alongside.before, alongside.after)
        return answer, 0, read

    def _run(self, script: lua.Script, script_keys: list[str], args: list[Any]) -> tuple[Any, int]:
        """A script's answer and how many replicas confirmed it (WAIT, when the store must wait)."""
        if self._ack.waits:
            return run_and_wait(self._client, script, script_keys, args, self._ack)
        return script(self._client, script_keys, args), 0

    def _head(self, match_id: str, version: int) -> str:
        """The chain link of the event at ``version`` (the genesis link before the first)."""
        if version == 0:
            return genesis_hash(match_id)
        cached = self._heads.get(match_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        entries = self._client.xrange(keys.match_events(match_id), min=f"{version}-0", max=f"{version}-0")
        if not entries:
            return ""  # the stream is not at ``version``: the append's check refuses it
        return _text(entries[0][1].get(b"h", entries[0][1].get("h", b"")))

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        """Claim ``token`` for a refused request; the record that was there first, if any."""
        record = TokenRecord(token.fingerprint, 0, 0, refusal)
        script_keys = [keys.match_tokens(match_id), keys.match_refusals(match_id)]
        earlier = lua.REMEMBER_REFUSAL(self._client, script_keys,
                                       [token.key, record.encode(), REFUSALS_KEPT, REFUSALS_KEPT_SECONDS])
        return None if earlier is None else TokenRecord.decode(earlier)

    def import_events(self, match_id: str, events: Sequence[StoredEvent]) -> int:
        """Write an exported match verbatim (one script) into an empty stream."""
        check_import(events)
        args: list[Any] = [match_id]
        for e in events:
            args += [e.type, e.schema_version, e.at, encode_data(e.data), e.hash]
        script_keys = [keys.match_events(match_id), keys.match_unprojected(match_id),
                       keys.unprojected_index(match_id, self._per_slot)]
        ok, version = lua.IMPORT(self._client, script_keys, args)
        if not int(ok):
            raise ConcurrencyError(0, int(version), match_id)
        return int(version)

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        """What the append with token ``key`` recorded in this match, if any (once a replica has it)."""
        if self._ack.waits:
            script_keys = [keys.match_tokens(match_id), keys.match_refusals(match_id)]
            raw, acked = self._run(lua.CONFIRM_TOKEN, script_keys, [key])
            record = None if raw is None else TokenRecord.decode(raw)
            if record is not None and record.refusal is None and acked < self._ack.replicas:
                raise NotDurableError(match_id)
            return record
        pipe = self._client.pipeline(transaction=False)  # one round trip; both in the match's slot
        pipe.hget(keys.match_tokens(match_id), key)
        pipe.hget(keys.match_refusals(match_id), key)
        appended, refused = pipe.execute()
        raw = appended if appended is not None else refused
        return None if raw is None else TokenRecord.decode(raw)

    @property
    def client(self) -> Any:
        """The Redis client the streams live on (``read_then`` pipelines on it)."""
        return self._client

    def read(self, match_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with ``version > after``, oldest first, at most ``limit``.

        Clears the match's catch-up flag first (see the module docstring).
        """
        return self.read_then(match_id, after, limit)[0]

    def read_then(
        self, match_id: str, after: int = 0, limit: int | None = None, then: Callable[[Any], Any] | None = None,
    ) -> tuple[list[StoredEvent], Any]:
        """``read``, and the replies of what ``then`` queues on its pipeline after the read: one round
        trip, run after the read (not on a cluster: another node may run it first)."""
        check_read(after, limit)
        pipe = self._client.pipeline(transaction=False)
        if limit != 0:
            # Clear the flag, then read (in this order, in one round trip; no transaction is
            # needed: an append between the two sets the flag again and asks for its own job).
            pipe.delete(keys.match_catch_up(match_id))
            # Version n is entry n-0, so "after" maps straight onto an inclusive start ID.
            pipe.xrange(keys.match_events(match_id), min=f"{after + 1}-0", max="+", count=limit)
        if then is not None:
            then(pipe)
        replies = pipe.execute() if len(pipe) else []
        stored = [_to_stored(match_id, entry_id, fields) for entry_id, fields in (replies[1] if limit != 0 else ())]
        return stored, replies[2 if limit != 0 else 0:] if then is not None else None

    def version(self, match_id: str) -> int:
        """The latest version of the match; 0 if it has no events."""
        return int(self._client.xlen(keys.match_events(match_id)))

    def match_ids(self) -> Iterator[str]:
        """Ids of every match with at least one event (SCAN: for rebuilds and sweeps)."""
        return self._scan_match_ids(keys.MATCH_EVENTS_PATTERN)  # the marks' sweep, over the streams
