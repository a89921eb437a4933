"""The registry holds each name once: by its comparison form and by its look-alike form."""
from __future__ import annotations

import unicodedata

import pytest

from services.api.__main__ import claim_old_lookalikes
from services.api.players import NameTakenError, PlayerRegistry
from shared import keys
from tests.unit.api.support import fake_app


@pytest.fixture
def players(fake_redis):
    return PlayerRegistry(fake_redis)


@pytest.mark.parametrize(("first", "second"), [
    ("Alice", "аlice"), ("Äijä", unicodedata.normalize("NFD", "ÄIJÄ")), ("IJsbrand", "Ĳsbrand"),
    ("জয়", "জ\u09df"), ("ক্ষ", "ক্\u200dষ"), ("ਕ੍ਯ", "ਕ੍\u200dਯ"), ("عمران", "ع\u200cمران"), ("علی", "على"),
])
def test_a_second_name_equal_or_alike_is_taken_and_leaves_no_trace(players, fake_redis, first, second):
    player, token = players.register(first)
    before = sorted(fake_redis.keys())
    with pytest.raises(NameTakenError):
        players.register(second)
    assert sorted(fake_redis.keys()) == before  # its player, its token and any claim it won are undone
    assert players.by_token(token) == player


def test_a_name_is_kept_normalised(players):
    player, _ = players.register("  A\u0308ijä  ")
    assert player.name == "Äijä" and players.by_id(player.id).name == "Äijä"


@pytest.mark.parametrize("name", ["bot", "BOT", "Воt", "B0t"])
def test_the_bots_name_and_its_look_alikes_are_reserved(players, name):
    with pytest.raises(NameTakenError):
        players.register(name)


def test_the_bot_keeps_its_name_when_an_old_look_alike_holds_the_look_alike_form(players, fake_redis):
    fake_redis.set(keys.player_name("bot", looks=True), "old-b0t")
    assert players.ensure("bot-id", "Bot", "a-long-enough-bot-token-0123456789").id == "bot-id"
    assert fake_redis.get(keys.player_name("bot")) == b"bot-id"


def _old_player(fake_redis, player_id: str, name: str) -> None:
    """A player registered before look-alikes counted: one claim, of the case-folded name."""
    fake_redis.hset(keys.player(player_id), mapping={"id": player_id, "name": name})
    fake_redis.set(keys.player_name(name), player_id)


def test_names_registered_before_get_their_look_alike_claims_before_the_api_serves(players, fake_redis):
    for player_id, name in (("p-bob", "Bob"), ("p-b0b", "B0b"), ("p-ann", "mary  ann"), ("p-sp", "   ")):
        _old_player(fake_redis, player_id, name)
    claim_old_lookalikes(fake_redis)  # what the launcher does before gunicorn starts
    assert fake_redis.get(keys.player_name("bob", looks=True)) in (b"p-bob", b"p-b0b")  # the first scanned
    assert fake_redis.get(keys.player_name("mary ann")) == b"p-ann"
    for taken in ("Воb", "BOB", "mary ann", "Mary Ann", "B0B", "   bob"):
        with pytest.raises(NameTakenError):
            players.register(taken)
    assert fake_redis.exists(keys.LOOKALIKES_CLAIMED)
    _old_player(fake_redis, "p-late", "Eve")
    claim_old_lookalikes(fake_redis)  # the work is marked done: a second start does not do it again
    assert not fake_redis.exists(keys.player_name("eve", looks=True))


def test_a_taken_name_is_quoted_isolated_in_the_answer_so_a_right_to_left_name_keeps_the_sentence_whole(fake_redis):
    client = fake_app(fake_redis, {"RATE_LIMITS": "off"}).test_client()
    assert client.post("/players", json={"name": "عمران"}).status_code == 201
    taken = client.post("/players", json={"name": "عمران"})
    assert taken.status_code == 409 and taken.get_json()["error"] == "NAME_TAKEN"
    assert "\u2068عمران\u2069" in taken.get_json()["message"]
