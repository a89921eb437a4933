"""Names read along a catch-up's events serve its views only for the players they were read for."""
from shared.readmodels.generations import Pointer
from shared.readmodels.read_along import ReadAlong

ALONG = ReadAlong(Pointer(), {"alice-id": "alice"}, ("alice-id", "bot"))


def test_the_players_asked_are_named_as_read_an_id_the_directory_lacks_left_out():
    assert ALONG.names_of(["alice-id", "bot"]) == {"alice-id": "alice"}
    assert ALONG.names_of(["bot"]) == {}


def test_a_player_seated_since_the_read_has_the_names_read_again():
    assert ALONG.names_of(["alice-id", "bob-id"]) is None
