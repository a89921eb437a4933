"""Read models in Redis: written by the projector, read by the API.

The read models come in generations (see :mod:`shared.readmodels.writes` for the layout of one,
:mod:`shared.readmodels.generations` for the pointer). :class:`ReadModels` is what the API
uses: every call resolves the generation reads use with one HGET, and never caches it,
so the first call after a rebuild's switch already reads the new generation (a cached,
stale pointer would make read-your-writes waits time out on a generation no longer
written). Calls that read several keys that belong together resolve it once.

``ReadModels.at(generation)`` gives one generation explicitly (the projector, rebuilds
and tests). The write methods here write to the generation reads use unless told
otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shared import keys
from shared.archive.due import DueMatches
from shared.connect import is_cluster_client
from shared.directory import name_reads, names_in, names_read
from shared.eventstore import RedisEventStore
from shared.eventstore.marks import MarkedEventStore
from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, Reach, fold_stream_then, fold_to_refusal
from shared.readmodels.changes import ViewChanges
from shared.readmodels.clocks import Clocks
from shared.readmodels.generation_writes import GenerationWrites
from shared.readmodels.generations import Pointer, current_generation, pointer_from, queue_pointer_read, read_pointer
from shared.readmodels.lobby_lists import ArchivedSummary, no_archive
from shared.readmodels.parked import ParkedMatches
from shared.readmodels.player_feeds import PlayerFeeds, Telling
from shared.readmodels.projection import seated_ids
from shared.readmodels.rating_store import RedisRatings
from shared.readmodels.read_along import ReadAlong
from shared.readmodels.writes import AUDIENCES, GenerationModels, InvalidAudienceError
from shared.subscriber import Subscriber

__all__ = ["AUDIENCES", "GenerationModels", "InvalidAudienceError", "Pointer", "ReadModels"]


class ReadModels(GenerationWrites):
    """Match views, the lobby and the scoreboard of the generation being served.

    ``client`` is a ``redis.Redis``, ``RedisCluster`` or fakeredis client with
    ``decode_responses=False`` (views come back as raw JSON bytes). Waits are woken through
    ``subscriber``, the process's one (the API's live streams share it); without one, a
    subscriber of their own. ``archived_summary``: the lobby line of a listed match that left
    for the archive (its views left with it), for the lobby's and the players' lists.
    """

    def __init__(self, client: Any, subscriber: Subscriber | None = None,
                 archived_summary: ArchivedSummary = no_archive) -> None:
        self._client = client
        self._archived_summary = archived_summary
        self._changes = ViewChanges(subscriber or Subscriber(client))  # listens only once someone waits
        self.parked = ParkedMatches(client)
        self.clocks = Clocks(client)
        self.feeds = PlayerFeeds(client)

    @property
    def client(self) -> Any:
        """The Redis client the read models live on."""
        return self._client

    def generation(self) -> int:
        """The generation reads use now."""
        return current_generation(self._client)

    def pointer(self) -> Pointer:
        """The generation reads use and the one being built, in one round trip."""
        return read_pointer(self._client)

    def at(self, generation: int) -> GenerationModels:
        """The read models of ``generation``, whichever one reads use."""
        return GenerationModels(self._client, generation, self._archived_summary)

    def ratings(self, generation: int | None = None) -> RedisRatings:
        """The ratings read model of ``generation`` (None: the one reads use)."""
        return RedisRatings(self._client, self.generation() if generation is None else generation)

    def _served(self) -> GenerationModels:
        return self.at(self.generation())

    def _target(self, generation: int | None) -> GenerationModels:
        return self._served() if generation is None else self.at(generation)

    # --- reads (the API's) -------------------------------------------------------

    def view_json(self, match_id: str, audience: str) -> bytes | None:
        """The stored view of ``audience`` ("A", "B" or "spectator") as JSON bytes."""
        return self._served().view_json(match_id, audience)

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None:
        """The stored view of ``audience``; None if the match has not been projected."""
        return self._served().view(match_id, audience)

    def summary(self, match_id: str) -> dict[str, Any] | None:
        """The stored lobby summary of the match; None if it has not been projected."""
        return self._served().summary(match_id)

    def projected_version(self, match_id: str) -> int:
        """The version of the stored views; 0 if the match has not been projected."""
        return self._served().projected_version(match_id)

    def wait_for_version(self, match_id: str, min_version: int, timeout_s: float) -> int:
        """Until the views reach ``min_version`` or ``timeout_s`` passes; the version reached.

        Woken by the projector's writes (see :mod:`shared.readmodels.changes`), not by
        polling. Each look resolves the generation again: a switch during the wait moves
        it on to the new generation, the only one still written.
        """
        keys.validate_match_id(match_id)
        return self._changes.wait_until(match_id, lambda: self.projected_version(match_id), min_version, timeout_s)

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the public matches of ``status``, newest first, at most ``limit``; ``after``:
        only those listed after that match (the last of the page before)."""
        return self._served().lobby(status, limit, after)

    def player_matches(self, player_id: str, status: str, limit: int = 50, hide: bool = False,
                       after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of one player's matches of ``status`` (``hide``: not the private ones), newest first;
        ``after``: only those listed after that match (the last of the page before)."""
        return self._served().player_matches(player_id, status, limit, hide, after)

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        """``{"players": [row, ...], "version": <finished matches counted>}``, best first."""
        return self._served().scoreboard(limit)

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        """One player's scoreboard row; None if none of their matches has finished."""
        return self._served().player_row(player_id)

    def lag(self, store: MarkedEventStore) -> int:
        """Events appended but not yet projected, over the marked matches the store's index lists."""
        served = self._served()
        marked = list(store.unprojected_listed())  # the index: their number bounds the work
        return sum(max(0, store.version(match_id) - projected)
                   for match_id, projected in zip(marked, served.projected_versions(marked)))

    # --- writes (the projector's; ``generation`` None: the one reads use) ------

    def fold_new(
        self, store: EventStore, start: FoldedMatch, page_size: int, passes: tuple[type[BaseException], ...] = (),
    ) -> tuple[Reach, ReadAlong | None]:
        """The events of ``store`` after ``start`` folded up to any refused (``fold_to_refusal``),
        and the generation pointer and the names of the players seated at ``start``, read after them.

        When the events live on this same Redis node, those reads are queued in the round trip
        of the events' last read (a pipeline runs in order there); elsewhere (another store, a
        cluster, whose pipeline splits by node) they are not read: None, the writer reads them.
        """
        one_node = isinstance(store, RedisEventStore) and store.client is self._client
        if not one_node or is_cluster_client(self._client):
            return fold_to_refusal(store, start, page_size, passes=passes), None
        seated = tuple(seated_ids(start.state))
        naming = name_reads(seated)

        def read_along(pipe: Any) -> None:
            queue_pointer_read(pipe)
            for read in naming:
                pipe.execute_command(*read)

        reach = fold_stream_then(store, start, read_along, page_size, passes=passes)
        if reach.reply is None:
            return reach, None
        pointer, *names = reach.reply
        return reach, ReadAlong(pointer_from(pointer), names_read(seated, names), seated)

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False,
        generation: int | None = None, clear_mark: bool = True,
    ) -> bool:
        """Store the views of ``version`` if newer (see ``GenerationModels.write_match``)."""
        return self._target(generation).write_match(
            match_id, version, views, summary,
            replace_same_version=replace_same_version, clear_mark=clear_mark,
        )

    def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The player directory's names of ``player_ids``, in one round trip."""
        return names_in(self._client, player_ids)

    def tell(self, match_id: str, deadline_ms: int | None, notices: Sequence[Telling],
             finished_at: int | None = None) -> None:
        """The clock's index and the players' notices after a served write, in one round trip
        (on a cluster, whose pipeline cannot publish, the streams are woken after it); with
        ``finished_at``, the match ended then: it waits for the archive (:mod:`shared.archive.due`)."""
        after = self._client.pipeline(transaction=False)
        to_wake = self.feeds.append(notices, into=after)
        self.clocks.set(match_id, deadline_ms, into=after)
        if finished_at is not None:
            DueMatches(self._client).finished(match_id, finished_at, into=after)
        after.execute()
        self.feeds.wake(to_wake)
