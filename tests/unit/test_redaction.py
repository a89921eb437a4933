"""What a seat may see of recorded events."""
from shared.redaction import redact

DEALT = {"round": 1, "dealer": "B", "hands": {"A": ["7H", "8S", "9C"], "B": ["AD", "KC", "10H"]},
         "stock": ["QS"] * 26}


def test_a_seat_sees_its_own_dealt_cards_only_and_never_the_stock():
    shown = redact("round_dealt", DEALT, "A")
    assert shown["hands"] == {"A": ["7H", "8S", "9C"], "B": [None, None, None]}
    assert set(shown["stock"]) == {None}
    assert DEALT["hands"]["B"] == ["AD", "KC", "10H"]  # the stored data is untouched


def test_a_spectator_sees_no_dealt_card():
    shown = redact("round_dealt", DEALT, None)
    assert shown["hands"] == {"A": [None] * 3, "B": [None] * 3}


def test_redealt_hands_and_fixture_decks_are_hidden():
    assert redact("redeal_accepted", {"seat": "B", "hands": DEALT["hands"]}, "B")["hands"]["A"] == [None] * 3
    assert redact("match_created", {"decks": [["7H", "8H"]]}, "A")["decks"] == [[None, None]]


def test_everything_shows_once_the_match_is_finished():
    assert redact("round_dealt", DEALT, None, finished=True) == DEALT


def test_other_events_pass_unchanged():
    played = {"seat": "A", "card": "7H"}
    assert redact("card_played", played, "B") == played
