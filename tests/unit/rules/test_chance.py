"""Provably fair deals: every shuffle derives from a secret seed, committed up front."""
import hashlib
import random

from shared.rules import DECK, replay
from shared.rules import events as ev
from shared.rules.chance import SeededChance, commitment_of, seeded_deck
from shared.rules.playthrough import play_random_match

SEED = "11" * 32


def test_a_seeded_deck_is_a_permutation_fixed_by_seed_and_round():
    deck = seeded_deck(SEED, 1)
    assert sorted(deck) == sorted(DECK)
    assert seeded_deck(SEED, 1) == deck
    assert seeded_deck(SEED, 2) != deck
    assert seeded_deck("22" * 32, 1) != deck


def test_the_commitment_is_the_sha256_of_the_seed_bytes():
    assert commitment_of(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_seeded_decks_put_every_card_everywhere():
    # 3,200 decks: each card reaches the top position, none sticks to its place.
    tops = {seeded_deck(f"{n:064x}", 1)[0] for n in range(3200)}
    assert tops == set(DECK)
    stuck = sum(seeded_deck(f"{n:064x}", 1)[5] == DECK[5] for n in range(3200))
    assert stuck < 3200 * 3 / 32


def test_a_seeded_match_commits_first_and_reveals_at_the_end_and_every_deal_recomputes():
    chance = SeededChance.new()
    state, events = play_random_match(random.Random(5), chance=chance)

    created, won = events[0], events[-1]
    assert created.seed_commitment == commitment_of(chance.seed)
    assert isinstance(won, ev.MatchWon) and won.seed == chance.seed
    assert not any(chance.seed in repr(e) for e in events[:-1])
    for dealt in (e for e in events if isinstance(e, ev.RoundDealt)):
        deck = seeded_deck(won.seed, dealt.round)
        non_dealer, dealer = dealt.hands[dealt.dealer.other.index], dealt.hands[dealt.dealer.index]
        assert (deck[0:6:2], deck[1:6:2], deck[6:]) == (non_dealer, dealer, dealt.stock)
    assert replay(events).seed == chance.seed and state.seed_commitment == created.seed_commitment
