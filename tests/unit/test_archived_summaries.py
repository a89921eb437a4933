"""The lobby line of an archived match: the projector's own, read from the archive once, and none
(for a while, without asking) while the archive cannot be read."""
from __future__ import annotations

import random

import pytest

from shared.archive import ArchivedMatch, ArchiveUnavailableError
from shared.archive.archived_reads import ArchivedReads
from shared.archive.archived_summaries import OUTAGE_SECONDS, ArchivedSummaries
from shared.archive.index import ArchiveIndex, IndexEntry
from shared.archive.memory import InMemoryArchive
from shared.eventstore import RedisEventStore
from shared.fold import FoldedMatch, fold_stream
from shared.readmodels.projection import read_models_of
from tests.projector_support import append_in_batches, random_match


@pytest.fixture
def world(fake_redis):
    """Two matches stored and archived (their index entries written), the clock at 0, the archive's reads counted."""
    store, archive, now, asked = RedisEventStore(fake_redis), InMemoryArchive(), [0.0], []
    for match_id in ("m1", "m2"):
        append_in_batches(store, match_id, random_match(3, match_id), random.Random(3))
        events = tuple(store.read(match_id))
        archive.put(ArchivedMatch(match_id, events, None, events[-1].at))
        ArchiveIndex(fake_redis).put(match_id, IndexEntry(len(events), events[-1].at, events[-1].hash))
    original = archive.get
    archive.get = lambda match_id: asked.append(match_id) or original(match_id)
    reads = ArchivedReads(store, ArchiveIndex(fake_redis), archive)
    return {"store": store, "archive": archive, "now": now, "asked": asked,
            "lines": ArchivedSummaries(reads, clock=lambda: now[0])}


def test_the_line_is_the_projectors_own_and_is_read_from_the_archive_once(world):
    expected = read_models_of(fold_stream(world["store"], FoldedMatch("m1"))).summary
    assert world["lines"]("m1") == expected and world["lines"]("m1") == expected
    assert world["asked"] == ["m1"]
    assert world["lines"]("m9") is None  # not archived: no line, and the archive is not asked
    assert world["asked"] == ["m1"]


def test_an_unreachable_archive_gives_no_line_and_is_not_asked_again_for_a_while(world, caplog):
    def unreachable(match_id):
        world["asked"].append(match_id)
        raise ArchiveUnavailableError("connection refused")

    reachable, world["archive"].get = world["archive"].get, unreachable
    assert world["lines"]("m1") is None and world["lines"]("m2") is None
    assert world["asked"] == ["m1"] and "the archive is unreachable" in caplog.text
    world["archive"].get = reachable
    world["now"][0] = OUTAGE_SECONDS - 0.1
    assert world["lines"]("m2") is None and world["asked"] == ["m1"]
    world["now"][0] = OUTAGE_SECONDS + 0.1
    assert world["lines"]("m2")["id"] == "m2" and world["asked"] == ["m1", "m2"]


def test_a_damaged_record_gives_no_line_and_leaves_the_others_alone(world, caplog):
    world["archive"]._records["m1"] = world["archive"]._records["m1"][:-9]
    assert world["lines"]("m1") is None and "cannot be read" in caplog.text
    assert world["lines"]("m2")["id"] == "m2"
