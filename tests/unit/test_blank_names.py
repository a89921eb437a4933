"""Names that look like what they are: nothing that shows as nothing, in a name or in its skeleton.

``Bot`` followed by a Braille blank was registered beside the reserved ``Bot`` and listed in
the lobby as the house bot (issue 29, item 4); the same with the Hangul filler, the musical
null notehead and the Khitan filler, and for any name.
"""
from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.api.__main__ import claim_old_lookalikes
from services.api.players import NameTakenError, PlayerRegistry, name_claims
from shared import blank_characters, keys, names
from shared.identity import validate_player_name

BRAILLE_BLANK, HANGUL_FILLER, NULL_NOTEHEAD, KHITAN_FILLER = "\u2800", "\u3164", "\U0001d159", "\U00016fe4"
HIDDEN = [BRAILLE_BLANK, HANGUL_FILLER, NULL_NOTEHEAD, KHITAN_FILLER, "\u115f", "\u1160", "\uffa0",
          "\u180e", "\u200b", "\u2060", "\ufeff", "\u00ad", "\u034f", "\ufe0f", "\U0001d173", "\U000e0020"]
SPACES = ["\u00a0", "\u2000", "\u2005", "\u200a", "\u202f", "\u205f", "\u3000", "\u1680"]


def _alike(a: str, b: str) -> bool:
    """Whether two names, as the profile writes them, hold a claim in common (shared/names.py)."""
    mine, theirs = (names.same_name_keys(names.profile_form(name)) for name in (a, b))
    return mine[0] == theirs[0] or bool(set(mine[1:]) & set(theirs[1:]))


@pytest.mark.parametrize("hidden", HIDDEN, ids=lambda char: f"U+{ord(char):04X}")
@pytest.mark.parametrize("where", ["Bot{}", "{}Bot", "B{}ot", "alice{}", "ali{}ce"])
def test_a_name_holding_a_character_that_shows_nothing_is_refused(hidden, where):
    with pytest.raises(names.InvalidNameError, match="shows as nothing|DISALLOWED"):
        names.normalise(where.format(hidden))


@pytest.mark.parametrize("hidden", [BRAILLE_BLANK, NULL_NOTEHEAD, KHITAN_FILLER], ids=lambda c: f"U+{ord(c):04X}")
def test_the_characters_drawn_blank_that_the_profile_lets_through_are_refused_with_their_code_point(hidden):
    names.profile_form("alice" + hidden)  # the profile itself lets it through: a symbol, a mark
    with pytest.raises(names.InvalidNameError, match=f"U\\+{ord(hidden):04X} shows as nothing"):
        names.normalise("alice" + hidden)


@pytest.mark.parametrize("space", SPACES, ids=lambda char: f"U+{ord(char):04X}")
def test_a_space_of_any_width_is_one_ascii_space_and_trimmed(space):
    assert names.normalise(f"Bot{space}") == "Bot"
    assert names.normalise(f"Mary{space}Ann") == "Mary Ann"


@pytest.mark.parametrize("hidden", [BRAILLE_BLANK, HANGUL_FILLER, NULL_NOTEHEAD, KHITAN_FILLER],
                         ids=lambda char: f"U+{ord(char):04X}")
def test_the_skeleton_drops_what_shows_nothing_so_an_old_name_holding_it_is_the_name_it_imitates(hidden):
    assert names.skeleton(f"Bot{hidden}") == "Bot"
    assert names.lookalike_forms(f"alice{hidden}") == ("alice", "alice")
    if hidden != HANGUL_FILLER:  # the profile refuses the Hangul filler outright: no old name holds one
        assert _alike(f"alice{hidden}", "alice") and _alike(f"Bot{hidden}", "Воt")


def test_the_default_ignorable_table_is_unicodes():
    ignorable = [cp for cp in range(sys.maxunicode + 1) if blank_characters.default_ignorable(chr(cp))]
    assert len(ignorable) == 4174  # DerivedCoreProperties.txt: Default_Ignorable_Code_Point, 4,174 code points
    assert {0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x3164, 0xFFA0, 0x1D173, 0xE0FFF} <= set(ignorable)
    assert not {0x0020, 0x2800, 0x1D159, 0x16FE4, 0x0041} & set(ignorable)  # drawn blank is a list of its own


def test_a_blank_name_registered_before_still_audits_and_imports_as_it_was_kept():
    assert validate_player_name(f"Bot{BRAILLE_BLANK}") == f"Bot{BRAILLE_BLANK}"


# --- the registry: reserved names and names kept before ---------------------------------------

@pytest.fixture
def players(fake_redis):
    return PlayerRegistry(fake_redis)


@pytest.mark.parametrize("name", ["Bоt", "BОТ", "Bot\u3000", "\u2003bot"])  # Cyrillic о, О, Т; spaces trimmed
def test_the_reserved_name_is_compared_by_skeleton(players, name):
    with pytest.raises(NameTakenError):
        players.register(name)


def test_the_reserved_name_with_a_blank_is_refused_and_its_claims_are_the_reserved_ones(players, fake_redis):
    players.register("alice")
    before = sorted(fake_redis.keys())
    with pytest.raises(names.InvalidNameError):
        players.register(f"Bot{BRAILLE_BLANK}")
    assert sorted(fake_redis.keys()) == before  # nothing recorded
    assert set(name_claims("bot")) & set(name_claims(f"Bot{BRAILLE_BLANK}"))


def test_names_kept_with_a_blank_get_the_claims_of_the_name_they_imitate_at_start_up(players, fake_redis):
    old = f"alice{BRAILLE_BLANK}"
    fake_redis.hset(keys.player("p-old"), mapping={"id": "p-old", "name": old})
    fake_redis.set(keys.player_name(names.comparison_form(old)), "p-old")
    fake_redis.set(keys.player_name(old, looks=True), "p-old")  # its look-alike form, blank kept
    fake_redis.set(keys.LOOKALIKES_CLAIMED, 1)  # the first migration ran, under the skeleton of before
    claim_old_lookalikes(fake_redis)
    assert fake_redis.get(keys.player_name("alice", looks=True)) == b"p-old"
    for taken in ("alice", "ALICE", "аlice"):
        with pytest.raises(NameTakenError):
            players.register(taken)
    assert int(fake_redis.get(keys.LOOKALIKES_CLAIMED)) == names.SKELETON_VERSION
    fake_redis.delete(keys.player_name("alice", looks=True))
    claim_old_lookalikes(fake_redis)  # done for this skeleton: a second start does not scan again
    assert not fake_redis.exists(keys.player_name("alice", looks=True))


# --- properties ---------------------------------------------------------------------------------

_SOME_HIDDEN = st.sampled_from(HIDDEN + ["\u200c", "\u200d"])
_NAMES = st.text(st.one_of(st.characters(codec="utf-8"), _SOME_HIDDEN), min_size=1, max_size=12)


def _accepted(text: str) -> str | None:
    try:
        return names.normalise(text)
    except names.InvalidNameError:
        return None


@given(_NAMES)
def test_no_accepted_name_holds_a_character_that_shows_nothing_but_a_joiner_the_profile_allows(text):
    name = _accepted(text)
    if name is None:
        return
    hidden = [char for char in name if blank_characters.shows_nothing(char)]
    assert set(hidden) <= blank_characters.JOINERS  # ZWJ, ZWNJ: only after a virama or between joining letters
    assert not any(blank_characters.shows_nothing(char) for form in names.lookalike_forms(name) for char in form)


@given(st.text(st.characters(codec="utf-8"), min_size=1, max_size=12), _SOME_HIDDEN, st.integers(0, 12))
def test_a_character_that_shows_nothing_never_makes_a_name_of_its_own(text, hidden, at):
    """Put into an accepted name, it is refused, or the name is the one it was (the same claims)."""
    name = _accepted(text)
    if name is None:
        return
    other = _accepted(name[:at] + hidden + name[at:])
    assert other is None or names.same_name_keys(other)[1:] == names.same_name_keys(name)[1:]


@pytest.mark.parametrize("name", ["\u0301", "\u0301alice", "\u0a4d", "\u09bc\u09be"])
def test_a_name_that_begins_with_a_combining_mark_is_refused(name: str) -> None:
    with pytest.raises(names.InvalidNameError, match="combining mark"):
        names.normalise(name)


def test_marks_after_a_letter_stay_welcome() -> None:
    assert names.normalise("ਗੁਰਪ੍ਰੀਤ") == "ਗੁਰਪ੍ਰੀਤ" and names.normalise("জয়") == "জয়"
