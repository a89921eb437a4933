"""A refused match setup (rules, decks) is answered in the player's language from the refusal's own
template and values: no sentence is read back out of English text."""
from __future__ import annotations

import pytest

from services.api.field_messages import FIELD_MESSAGES
from shared import names
from shared.i18n import translator
from shared.rules.variants import MAX_NEW_TARGET
from tests.unit.api.support import fake_app


@pytest.fixture
def client(fake_redis):
    return fake_app(fake_redis, {"RATE_LIMITS": "off"}).test_client()


def _refused(client, body: dict) -> dict:
    token = client.post("/players", json={"name": "setter"}).get_json()["token"]
    reply = client.post("/matches", json=body, headers={"Authorization": f"Bearer {token}", "Accept-Language": "fi"})
    assert reply.status_code == 400 and reply.get_json()["error"] == "INVALID_REQUEST"
    return reply.get_json()["fields"]


def test_a_rule_out_of_its_range_is_refused_in_the_players_language(client) -> None:
    fields = _refused(client, {"rules": {"target": 0}})
    finnish = translator("fi").gettext("{key} must be a whole number from {low} to {high}", key="target", low=1,
                                       high=MAX_NEW_TARGET)
    assert fields["rules"]["target"] == [finnish] and str(MAX_NEW_TARGET) in finnish and "must be" not in finnish


def test_a_deck_with_a_card_that_is_none_is_refused_in_the_players_language(client) -> None:
    deck = ["XX", *["7H"] * 31]
    fields = _refused(client, {"decks": [deck], "first_dealer": "A"})
    finnish = translator("fi").gettext(
        "{card} is not a card: write rank then suit, ranks 7 8 9 10 J Q K A, suits S H D C (e.g. '7H', '10S')",
        card="'XX'")
    assert fields["decks"] == [finnish] and "'XX'" in finnish and "is not a card" not in finnish


def test_the_name_rule_a_400_may_quote_is_the_one_the_names_module_enforces() -> None:
    assert names.RULE in FIELD_MESSAGES
