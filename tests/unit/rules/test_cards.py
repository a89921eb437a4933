"""Cards, deck and rank order (R2, R3, R4, R6)."""
import random

import pytest

from shared.rules import DECK, InvalidCardError, InvalidDeckError, parse_card, parse_deck, strength
from shared.rules.cards import shuffled_deck, split_deal


def test_deck_has_32_distinct_cards_without_2_to_6():
    assert len(DECK) == len(set(DECK)) == 32
    assert not any(card[:-1] in {"2", "3", "4", "5", "6"} for card in DECK)


def test_rank_order_is_9_10_J_Q_K_A_8_7_whatever_the_suit():
    order = ["9S", "10H", "JD", "QC", "KS", "AH", "8D", "7C"]
    assert sorted(order, key=strength) == order
    assert strength("7S") == strength("7H")


@pytest.mark.parametrize("text", ["7H", "10S", "AS", "QD", "8C"])
def test_parse_card_accepts_canonical_cards(text):
    assert parse_card(text) == text


@pytest.mark.parametrize("text", ["", "7", "H7", "7h", "6H", "2S", "11S", "10X", "10", " 7H", None, 7])
def test_parse_card_refuses_anything_else_with_a_clear_message(text):
    with pytest.raises(InvalidCardError, match="rank then suit"):
        parse_card(text)


def test_parse_deck_needs_each_card_once():
    assert parse_deck(DECK) == DECK
    with pytest.raises(InvalidDeckError):
        parse_deck(DECK[:-1] + (DECK[0],))
    with pytest.raises(InvalidDeckError):
        parse_deck(DECK[:31])


def test_deal_gives_non_dealer_odd_cards_and_dealer_even_cards():
    non_dealer, dealer, stock = split_deal([f"c{i}" for i in range(1, 33)])
    assert non_dealer == ("c1", "c3", "c5") and dealer == ("c2", "c4", "c6")
    assert stock[0] == "c7" and len(stock) == 26


def _shuffled_by_random(rng: random.Random) -> tuple[str, ...]:
    cards = list(DECK)
    rng.shuffle(cards)
    return tuple(cards)


def test_a_drawn_deck_is_the_one_random_shuffle_draws_and_leaves_the_same_stream():
    for seed in range(500):
        ours, theirs = random.Random(seed), random.Random(seed)
        for _ in range(3):  # several rounds' deals from one stream
            assert shuffled_deck(ours) == _shuffled_by_random(theirs)
        assert ours.random() == theirs.random()


class _OwnDraws(random.Random):
    """A generator that draws its own way (its own ``random``): ``shuffle`` then draws without
    ``getrandbits``."""

    def random(self) -> float:
        return super().random() ** 2


def test_a_generator_that_draws_its_own_way_deals_by_its_own_shuffle():
    assert shuffled_deck(_OwnDraws(3)) == _shuffled_by_random(_OwnDraws(3))
    assert shuffled_deck(_OwnDraws(3)) != shuffled_deck(random.Random(3))


class _OwnShuffle(random.Random):
    """A generator with a shuffle of its own (here: the deck reversed after the usual shuffle)."""

    def shuffle(self, x) -> None:
        super().shuffle(x)
        x.reverse()


def test_a_generator_with_its_own_shuffle_deals_by_it():
    assert shuffled_deck(_OwnShuffle(3)) == _shuffled_by_random(_OwnShuffle(3))
    assert shuffled_deck(_OwnShuffle(3)) == tuple(reversed(shuffled_deck(random.Random(3))))
