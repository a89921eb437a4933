"""/events reads the window asked for (and the rest of its last round), not the whole match,
and redacts it exactly as a reading of the whole match would."""
from __future__ import annotations

import random

import pytest

from services.api.history import _rest_of_its_rounds
from shared.codec import encode
from shared.eventstore import InMemoryEventStore
from shared.redaction import public_events
from shared.rules.cards import shuffled_deck
from shared.rules.playthrough import play_random_match


class CountingStore(InMemoryEventStore):
    """Remembers the lowest version any read asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.lowest_after: int | None = None

    def read(self, match_id, after=0, limit=None):
        self.lowest_after = after if self.lowest_after is None else min(self.lowest_after, after)
        return super().read(match_id, after, limit)


def _stored(seed: int, with_decks: bool) -> tuple[CountingStore, list]:
    rng = random.Random(seed)
    decks = tuple(tuple(shuffled_deck(rng)) for _ in range(2)) if with_decks else ()
    _, events = play_random_match(rng, decks=decks)
    store = CountingStore()
    store.append("m", [encode(event) for event in events], 0)
    return store, store.read("m")


@pytest.mark.parametrize("seed, with_decks", [(seed, seed % 3 == 0) for seed in range(12)])
def test_a_window_is_redacted_as_the_whole_log_would_redact_it(seed: int, with_decks: bool) -> None:
    store, everything = _stored(seed, with_decks)
    rng = random.Random(seed)
    for _ in range(25):
        end = rng.randint(1, len(everything))  # "now": the match as it stood at version `end`
        known_now, after = everything[:end], rng.randint(0, end - 1)
        window = known_now[after:after + rng.choice((1, 3, 10, 50))]
        rest = _rest_of_its_rounds(store, "m", window, end)
        assert all(event.version <= end for event in rest)
        finished = end == len(everything)
        for audience in ("A", "B", None):
            expected = public_events(window, audience, known=known_now)
            assert public_events(window, audience, window + rest, finished) == expected


def test_a_late_window_never_reads_the_events_before_it() -> None:
    store, everything = _stored(5, with_decks=False)
    after = len(everything) - 5
    window = store.read("m", after=after, limit=1)
    store.lowest_after = None
    rest = _rest_of_its_rounds(store, "m", window, len(everything))
    assert store.lowest_after >= after and len(rest) < len(everything) - after


def test_what_was_appended_after_the_request_began_is_never_known() -> None:
    store, everything = _stored(7, with_decks=False)
    deal = next(event for event in everything[3:] if event.type == "round_dealt")
    window = store.read("m", after=0, limit=deal.version)  # ends on a deal: its round is still to come
    began_at = deal.version + 1  # the match's version when the request began
    rest = _rest_of_its_rounds(store, "m", window, began_at)
    assert [event.version for event in rest] == [began_at]  # the move after it, not the later ones
