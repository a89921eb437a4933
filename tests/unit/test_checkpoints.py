"""Replays from checkpoints (shared/checkpoints.py): at every version of random matches, and of
the longest match R33 allows, the same fold as a plain fold from version 0; bounded memory; no
fold kept for a match that does not exist."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.checkpoints import Checkpoints, fold_marking
from shared.codec import encode
from shared.eventstore.memory import InMemoryEventStore
from shared.fold import FoldCache, FoldedMatch, fold, fold_up_to
from shared.rules import Event
from shared.rules.playthrough import play_random_match
from shared.rules.void_rounds import void_match


class Ticking:
    """A clock a millisecond on at each reading: every stored event has a time of its own."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        self.now += 1
        return self.now


def stored(events: list[Event], match_id: str = "m", batch: int = 3) -> InMemoryEventStore:
    store = InMemoryEventStore(Ticking())
    for start in range(0, len(events), batch):
        store.append(match_id, [encode(event) for event in events[start:start + batch]], start)
    return store


def plain(store: InMemoryEventStore, match_id: str, version: int) -> FoldedMatch:
    """What a replay folded before checkpoints: every event up to ``version``, from nothing."""
    return fold(FoldedMatch(match_id), store.read(match_id, limit=version))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), every=st.sampled_from([1, 2, 7, 64]), order=st.randoms(use_true_random=False))
def test_a_replay_from_checkpoints_is_the_plain_fold_at_every_version(seed: int, every: int, order) -> None:
    _, events = play_random_match(random.Random(seed), timeout_rate=0.05, resign_weight=0.002)
    store = stored(events)
    versions = list(range(1, len(events) + 1))
    order.shuffle(versions)  # late versions first too: folds on from a checkpoint, or extends them
    checkpoints = Checkpoints(every=every)
    for version in versions:
        assert checkpoints.at(store, "m", version) == plain(store, "m", version)
    assert [c.version for c in checkpoints.known("m")] == list(range(0, len(events) + 1, every))


def test_the_longest_match_replays_alike_and_keeps_one_checkpoint_in_64() -> None:
    events = void_match("long", rounds=400)
    assert len(events) > 9_000  # some 25 events a round: redealt, raised six times, three tricks spoiled
    store = stored(events, "long", batch=500)
    checkpoints = Checkpoints()
    last = len(events)
    assert checkpoints.at(store, "long", last) == plain(store, "long", last) == fold_up_to(store, "long", last)
    assert len(checkpoints) == last // 64 + 1
    for version in (1, 63, 64, 65, 640, 4_095, 4_097, 7_000, last - 64, last - 1):  # beside checkpoints and between
        assert checkpoints.at(store, "long", version) == plain(store, "long", version)
    assert len(checkpoints) == last // 64 + 1  # the earlier versions folded on from what was kept


def test_a_replay_reads_only_the_events_past_its_checkpoint() -> None:
    events = void_match("long", rounds=40)
    store = Counting(stored(events, "long"))
    checkpoints = Checkpoints()
    checkpoints.at(store, "long", len(events))
    store.events_read = 0
    checkpoints.at(store, "long", 700)
    assert store.events_read == 700 - 640


class Counting:
    """A store that counts the events read from it."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self.store, self.events_read = store, 0

    def read(self, match_id: str, after: int = 0, limit: int | None = None):
        page = self.store.read(match_id, after=after, limit=limit)
        self.events_read += len(page)
        return page


def test_checkpoints_are_bounded_by_forgetting_the_least_recently_replayed_match() -> None:
    matches = {f"m{n}": void_match(f"m{n}", rounds=12) for n in range(3)}  # some 300 events: 4-5 checkpoints each
    store = InMemoryEventStore()
    for match_id, events in matches.items():
        store.append(match_id, [encode(event) for event in events], 0)
    checkpoints = Checkpoints(kept=12)
    for match_id in matches:
        checkpoints.at(store, match_id, len(matches[match_id]))
    assert len(checkpoints) <= 12
    assert len(checkpoints.known("m0")) == 1  # forgotten first: the version-0 start only
    assert len(checkpoints.known("m2")) > 1
    assert checkpoints.at(store, "m0", 200) == plain(store, "m0", 200)  # forgotten is only slower


def test_a_match_that_does_not_exist_keeps_nothing() -> None:
    store, checkpoints = InMemoryEventStore(), Checkpoints()
    assert checkpoints.at(store, "nobody", 100) == FoldedMatch("nobody")
    assert len(checkpoints) == 0


def test_random_ids_do_not_evict_a_real_fold_from_the_fold_cache() -> None:
    events = void_match("real", rounds=2)
    store = stored(events, "real")
    cache = FoldCache(capacity=2)
    real = cache.latest(store, "real")
    for n in range(50):
        assert cache.latest(store, f"random-{n}") == FoldedMatch(f"random-{n}")  # a fold at version 0 ...
        assert cache.get(f"random-{n}") is None  # ... is never kept
    assert cache.get("real") is real


def test_fold_marking_keeps_the_fold_at_each_multiple() -> None:
    events = void_match("m", rounds=2)
    store = stored(events)
    page = store.read("m", after=5, limit=30)
    folded, marks = fold_marking(plain(store, "m", 5), page, 10)
    assert folded == plain(store, "m", 35)
    assert marks == [plain(store, "m", version) for version in (10, 20, 30)]
