"""Read-model keys come from the keys module and sit in the right cluster slots."""

from __future__ import annotations

import pytest

from shared import keys


def hash_tag(key: str) -> str:
    return key[key.index("{"):key.index("}") + 1]


def test_a_matchs_views_share_the_slot_of_its_stream_and_mark() -> None:
    assert keys.match_views("m-1") == "truc:{m:m-1}:views"
    assert hash_tag(keys.match_views("m-1")) == hash_tag(keys.match_events("m-1"))
    assert hash_tag(keys.match_views("m-1")) == hash_tag(keys.match_unprojected("m-1"))


def test_a_players_scoreboard_keys_share_one_slot() -> None:
    assert keys.player_results("p1") == "truc:{p:p1}:results"
    assert keys.player_totals("p1") == "truc:{p:p1}:totals"
    assert hash_tag(keys.player_results("p1")) == hash_tag(keys.player_totals("p1"))


def test_lobby_keys_exist_only_for_the_four_listed_statuses() -> None:
    assert [keys.lobby(status) for status in keys.LOBBY_STATUSES] == [
        "truc:lobby:waiting", "truc:lobby:playing", "truc:lobby:finished", "truc:lobby:cancelled",
    ]
    with pytest.raises(keys.InvalidLobbyStatusError):
        keys.lobby("new")


@pytest.mark.parametrize("bad_id", ["", "p:1", "p{1", "p}1", "x" * 65])
def test_a_player_id_that_could_reshape_a_key_is_refused(bad_id: str) -> None:
    with pytest.raises(keys.InvalidMatchIdError):
        keys.player_totals(bad_id)
