"""What a seat may see, over many seeded random matches across the variants.

The secrets are told independently of the module under test, from the events: a card is
secret from an audience in a round while it lies in the other seat's hand (any deal of the
round, redeals included) or in the stock and has not been played to the table in that
round; a fixture deck is secret until its round's cards are played. Nothing is secret once
the match is won. Cards are judged by round: every round deals the same 32 cards again.
"""
import random
import re
from dataclasses import dataclass, field, fields, is_dataclass

import orjson

from shared.rules import DECK, INITIAL, SEATS, MatchState, Rules, Seat, evolve, replay, replay_view, view
from shared.rules.events import CardPlayed, Event, MatchCreated, MatchWon, RedealAccepted, RoundDealt
from shared.rules.playthrough import play_random_match
from shared.rules.visibility import Table, shown, shown_events, table_of

MATCHES = 500
AUDIENCES = (Seat.A, Seat.B, None)
_CARD = re.compile(rb'"((?:[789]|10|[JQKA])[CDHS])"')


@dataclass
class _Round:
    dealt: dict[Seat, set[str]]  # every card dealt to a seat in the round
    hand: dict[Seat, set[str]]  # the latest deal's hand
    stock: set[str]
    played: set[str] = field(default_factory=set)


class Secrets:
    """Which cards each audience may not see, round by round, as the events go on."""

    def __init__(self) -> None:
        self.rounds: dict[int, _Round] = {}
        self.current = 0
        self._hidden: dict[tuple[Seat | None, int], set[str]] = {}  # of the events recorded so far

    def record(self, event: Event) -> None:
        self._hidden.clear()
        if isinstance(event, RoundDealt):
            self.current = event.round
            hands = {seat: set(cards) for seat, cards in zip(SEATS, event.hands)}
            self.rounds[event.round] = _Round({**hands}, hands, set(event.stock))
        elif isinstance(event, RedealAccepted):
            rnd = self.rounds[self.current]
            rnd.hand = {seat: set(cards) for seat, cards in zip(SEATS, event.hands)}
            for seat in SEATS:
                rnd.dealt[seat] = rnd.dealt[seat] | rnd.hand[seat]
        elif isinstance(event, CardPlayed):
            self.rounds[self.current].played.add(event.card)

    def hidden(self, audience: Seat | None, number: int) -> set[str]:
        """The cards of round ``number`` secret from ``audience``: all of a round not dealt yet."""
        key = (audience, number)
        if key not in self._hidden:
            self._hidden[key] = self._secret(audience, number)
        return self._hidden[key]

    def _secret(self, audience: Seat | None, number: int) -> set[str]:
        rnd = self.rounds.get(number)
        if rnd is None:
            return set(DECK) if number > self.current else set()
        others = set().union(*(cards for seat, cards in rnd.dealt.items() if seat is not audience))
        own = rnd.hand[audience] if audience else set()
        return (others | rnd.stock) - rnd.played - own


def _variant(rng: random.Random) -> Rules:
    return Rules.from_mapping({
        "raise_ladder": rng.choice(["seed", "even"]),
        "remainder_reject": rng.choice(["match", "previous_value"]),
        "alternate_requests": rng.choice([True, False]),
        "redeal_proposer": rng.choice(["either", "non_dealer"]),
        "redeals_per_round": rng.choice([0, 1, 1]),
        "target": rng.choice([1, 2, 3, 4, 6] * 2 + [12]),  # mostly short matches: 500 in a few seconds
    })


def random_events(seed: int) -> list[Event]:
    """Every event of one seeded match; every third match deals its first rounds from fixture decks,
    and in every fourth seats let the clock run out and resign now and then."""
    rng = random.Random(seed)
    rules = _variant(rng)
    decks = tuple(tuple(rng.sample(DECK, len(DECK))) for _ in range(rng.randint(1, 3))) if seed % 3 == 0 else ()
    time = {"timeout_rate": 0.05, "resign_weight": 0.01} if seed % 4 == 1 else {}
    _, events = play_random_match(rng, rules, decks=decks, **time)
    return events


def _cards_in_document(document: object) -> set[str]:
    return {found.decode() for found in _CARD.findall(orjson.dumps(document))}


def _cards_in_event(event: Event) -> tuple[tuple[int | None, frozenset[str]], ...]:
    """(deck number, cards) for each fixture deck of a creation, else (None, every card in the event)."""
    if isinstance(event, MatchCreated):
        return tuple((number, frozenset(deck) - {None}) for number, deck in enumerate(event.decks, 1))
    return ((None, frozenset(_strings(event)) & set(DECK)),)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple):
        return [text for item in value for text in _strings(item)]
    if is_dataclass(value):
        return [text for f in fields(value) for text in _strings(getattr(value, f.name))]
    return []


def _view_leaks(seen: dict, audience: Seat | None, secrets: Secrets) -> set[str]:
    current = {key: value for key, value in seen.items() if key != "last_round"}
    found = _cards_in_document(current) & secrets.hidden(audience, secrets.current)
    if seen["last_round"]:
        found |= _cards_in_document(seen["last_round"]) & secrets.hidden(audience, seen["last_round"]["number"])
    return found


def _event_leaks(events: list[Event], rounds: list[int], audience: Seat | None, secrets: Secrets,
                 checked: dict[int, Event]) -> set[str]:
    """Secret cards in the events as shown now. An event shown as it was at an earlier version
    is not checked again: a round's secrets only shrink as the match goes on."""
    found: set[str] = set()
    for version, (visible, number) in enumerate(zip(shown_events(events, audience), rounds), 1):
        before = checked.get(version)
        if before is visible or before == visible:
            continue
        checked[version] = visible
        for deck, cards in _cards_in_event(visible):
            if cards:
                found |= cards & secrets.hidden(audience, number if deck is None else deck)
    return found


def leaks_in(events: list[Event]) -> list[tuple[int, str, Seat | None, str]]:
    """(version, what, audience, card) for each secret card shown at any version before the end."""
    assert isinstance(events[-1], MatchWon)
    before_end = replay(events[:-1])
    secrets, state, rounds, found = Secrets(), INITIAL, [], []
    checked: dict[Seat | None, dict[int, Event]] = {audience: {} for audience in AUDIENCES}
    for version, event in enumerate(events[:-1], 1):
        secrets.record(event)
        state = evolve(state, event)
        rounds.append(secrets.current)
        for audience in AUDIENCES:
            shown_to = {
                "view": _view_leaks(view(state, audience), audience, secrets),
                "replay": _view_leaks(replay_view(state, audience, before_end), audience, secrets),
                "events": _event_leaks(events[:version], rounds, audience, secrets, checked[audience]),
            }
            found += [(version, what, audience, card) for what, cards in shown_to.items() for card in sorted(cards)]
    return found


def test_no_view_event_or_replay_shows_the_other_seats_unplayed_cards_or_the_stock_before_the_end():
    for seed in range(MATCHES):
        assert leaks_in(random_events(seed)) == [], f"seed {seed}"


def test_a_seat_is_shown_its_own_cards_and_everyone_the_cards_played_in_their_round():
    for seed in range(30):
        events, secrets = random_events(seed)[:-1], Secrets()
        for event in events:
            secrets.record(event)
        for audience in AUDIENCES:
            for event in shown_events(events, audience):
                if isinstance(event, RoundDealt):
                    own = set(event.hands[audience.index]) if audience else set()
                    played = secrets.rounds[event.round].played
                    cards = [card for hand in event.hands for card in hand] + list(event.stock)
                    assert own <= set(cards) and None not in own
                    assert set(cards) - {None} == own | (played & set(cards))


def test_everything_shows_once_the_match_is_won():
    for seed in range(30):
        events = random_events(seed)
        for audience in AUDIENCES:
            assert shown_events(events, audience) == events


def test_a_card_played_later_in_a_round_shows_in_the_deal_that_dealt_it():
    dealt = RoundDealt(1, Seat.B, (("7H", "8S", "9C"), ("AD", "KC", "10H")), ("QS", "JD"))
    table = table_of([dealt, CardPlayed(Seat.B, "KC")])
    assert shown(dealt, None, table, 1).hands == ((None, None, None), (None, "KC", None))
    assert shown(dealt, Seat.A, table, 1).hands == (("7H", "8S", "9C"), (None, "KC", None))
    assert shown(dealt, Seat.A, table, 1).stock == (None, None)


def test_a_fixture_deck_shows_only_the_cards_played_in_its_round():
    created = play_random_match(random.Random(0), decks=(tuple(DECK),))[1][0]
    table = Table(round=2, played=frozenset({(1, DECK[0]), (2, DECK[1])}))
    assert shown(created, Seat.A, table, 0).decks == ((DECK[0],) + (None,) * 31,)


def test_a_redeal_shows_the_audiences_new_hand_only():
    redeal = RedealAccepted(Seat.A, (("7H", "8S", "9C"), ("AD", "KC", "10H")))
    assert shown(redeal, Seat.B, Table(round=3), 3).hands == ((None, None, None), ("AD", "KC", "10H"))
    assert shown(redeal, Seat.B, Table(round=3, played=frozenset({(3, "9C")})), 3).hands[0] == (None, None, "9C")


def test_a_replay_shows_both_hands_only_once_the_match_is_won():
    events = random_events(1)
    then: MatchState = replay(events[:3])
    assert "hands" not in replay_view(then, Seat.A, replay(events[:-1]))["round"]
    assert "hands" in replay_view(then, Seat.A, replay(events))["round"]
