"""A match's viewers in one process share one read per change and one rendered view per audience."""
from __future__ import annotations

from services.api.feeds import MatchFeed
from shared.fold import FoldedMatch
from shared.rules import INITIAL, Seat


def test_many_viewers_of_a_change_cost_one_read_and_one_render_per_audience(monkeypatch) -> None:
    reads, renders = [], []
    versions = iter(range(1, 100))

    def load(match_id: str) -> FoldedMatch:
        reads.append(match_id)
        return FoldedMatch(match_id, next(versions), INITIAL)

    monkeypatch.setattr("services.api.feeds.view_message", 
                        lambda folded, seat, names=None: renders.append(seat) or b"view")
    feed = MatchFeed("m1", load)
    for _ in range(500):
        folded = feed.current()
        for seat in (Seat.A, Seat.B, None):
            feed.message(folded, seat)
    assert (len(reads), len(renders)) == (1, 3)

    woken = feed.changed
    feed.notify()  # an append: every viewer wakes, the first to look reads
    assert woken.is_set() and not feed.changed.is_set()
    assert {feed.current().version for _ in range(500)} == {2} and len(reads) == 2
    assert feed.known() is not None


def test_a_feed_not_read_for_a_keep_alive_period_is_read_again_once() -> None:
    reads = []
    feed = MatchFeed("m1", lambda match_id: reads.append(match_id) or FoldedMatch(match_id, 1, INITIAL))
    feed.current()
    feed.look_again_after(3600)
    assert feed.known() is not None and len(reads) == 1
    feed.look_again_after(0)
    assert feed.known() is None
    feed.current(), feed.current()
    assert len(reads) == 2
