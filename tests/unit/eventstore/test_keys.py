"""Every Redis key comes from one module, and a match id can never reshape a key."""

from __future__ import annotations

import pytest

from shared import keys


def test_the_keys_of_one_match_share_a_hash_tag() -> None:
    assert keys.match_events("abc-1_2") == "truc:{m:abc-1_2}:events"
    assert keys.match_unprojected("abc-1_2") == "truc:{m:abc-1_2}:unprojected"


@pytest.mark.parametrize("bad_id", ["", "a:b", "a{b", "a}b", "a b", "é", "a\nb", "x" * 65, 7, None])
def test_a_match_id_that_could_inject_into_a_key_is_refused(bad_id: object) -> None:
    with pytest.raises(keys.InvalidMatchIdError):
        keys.match_events(bad_id)  # type: ignore[arg-type]


def test_the_longest_allowed_match_id_is_64_characters() -> None:
    assert keys.match_events("x" * 64).count("x") == 64


def test_the_match_id_is_recovered_from_a_scanned_key() -> None:
    assert keys.match_id_from_key(b"truc:{m:m-42}:unprojected") == "m-42"
    assert keys.match_id_from_key(keys.match_events("zz")) == "zz"
