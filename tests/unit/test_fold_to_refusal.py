"""The one fold stops at the first event it refuses, in the one pass a catch-up makes."""
from __future__ import annotations

import pytest

from shared.codec import UnknownEventError, encode
from shared.eventstore import InMemoryEventStore, NewEvent
from shared.fold import FoldedMatch, fold, fold_to_refusal
from tests.projector_support import random_match


class CountingStore(InMemoryEventStore):
    """Counts its reads: a refused page is folded again from memory, never read again."""

    reads = 0

    def read(self, *args, **kwargs):
        self.reads += 1
        return super().read(*args, **kwargs)


def _store_with_poison(at: int) -> tuple[CountingStore, int]:
    store = CountingStore()
    store.append("m1", [encode(event) for event in random_match(7, "m1")[:at - 1]], 0)
    store.append("m1", [NewEvent("from_the_future", {"x": 1})], at - 1)
    return store, at


def test_the_fold_stops_right_before_the_refused_event_and_names_it() -> None:
    store, poison = _store_with_poison(at=5)
    reach = fold_to_refusal(store, FoldedMatch("m1"))
    assert reach.match.version == poison - 1
    assert reach.match == fold(FoldedMatch("m1"), store.read("m1", limit=poison - 1))
    assert reach.refusal is not None and reach.refusal.version == poison
    assert "from_the_future" in str(reach.refusal.error)


def test_a_refused_page_is_not_read_twice() -> None:
    store, _ = _store_with_poison(at=5)
    fold_to_refusal(store, FoldedMatch("m1"), page_size=500)
    assert store.reads == 1


def test_a_stream_that_folds_whole_has_no_refusal() -> None:
    clean = InMemoryEventStore()
    clean.append("m1", [encode(event) for event in random_match(7, "m1")[:4]], 0)
    reach = fold_to_refusal(clean, FoldedMatch("m1"), page_size=2)
    assert reach.refusal is None and reach.match.version == 4


def test_errors_that_say_nothing_of_an_event_pass_through() -> None:
    store, _ = _store_with_poison(at=5)
    with pytest.raises(UnknownEventError):
        fold_to_refusal(store, FoldedMatch("m1"), passes=(UnknownEventError,))
