"""The ratings fold: one order, whatever order the results were delivered in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.ratings.rating_fold import DAY_MS, NEW_PLAYER, RatedResult, order_key, ratings_of, refold

PLAYERS = ["ana", "ben", "cai", "dee", "eve"]


@st.composite
def results(draw: st.DrawFn) -> list[RatedResult]:
    count = draw(st.integers(min_value=1, max_value=25))
    out = []
    for index in range(count):
        a, b = draw(st.sampled_from(PLAYERS)), draw(st.sampled_from(PLAYERS))
        if a == b:
            continue
        ended = draw(st.integers(min_value=0, max_value=40 * DAY_MS))
        out.append(RatedResult(ended, f"m{index:03d}", a, b, draw(st.booleans())))
    return out


@settings(max_examples=150, deadline=None)
@given(results(), st.randoms())
def test_ratings_refolded_in_any_delivery_order_are_identical(delivered: list[RatedResult], rng) -> None:
    shuffled = list(delivered)
    rng.shuffle(shuffled)
    assert ratings_of(shuffled) == ratings_of(delivered)


@settings(max_examples=100, deadline=None)
@given(results(), st.data())
def test_a_late_result_refolded_from_its_place_equals_a_fold_from_nothing(delivered: list[RatedResult], data) -> None:
    ordered = sorted(delivered, key=lambda r: r.key)
    cut = data.draw(st.integers(min_value=0, max_value=len(ordered)))
    standing = {}
    for change in refold(ordered[:cut], {}):
        standing[change.player_id] = change.after
    resumed = dict(standing)
    for change in refold(ordered[cut:], standing):
        resumed[change.player_id] = change.after
    assert resumed == ratings_of(delivered)


def test_results_fold_by_end_time_then_match_id() -> None:
    first, second = RatedResult(5, "zz", "ana", "ben", True), RatedResult(5, "aa", "ben", "ana", True)
    changes = list(refold([first, second], {}))
    assert [change.match_id for change in changes] == ["aa", "aa", "zz", "zz"]
    assert order_key(5, "aa") < order_key(5, "zz") < order_key(6, "aa")


def test_each_result_updates_both_players_once_and_counts_the_record() -> None:
    final = ratings_of([RatedResult(DAY_MS, "m1", "ana", "ben", True),
                        RatedResult(2 * DAY_MS, "m2", "ana", "ben", False)])
    assert final["ana"].games == final["ben"].games == 2
    assert final["ana"].wins == final["ben"].wins == 1
    assert final["ana"].at == 2 * DAY_MS and final["ana"].provisional


def test_a_new_player_starts_at_lichess_start() -> None:
    assert (NEW_PLAYER.rating.value, NEW_PLAYER.rating.rd, NEW_PLAYER.rating.volatility) == (1500, 500, 0.09)
    assert NEW_PLAYER.games == 0 and NEW_PLAYER.provisional
