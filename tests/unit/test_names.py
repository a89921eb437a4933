"""Player names in any script: what is accepted, what is refused, and which names are the same one.

The six scripts of the supported languages: Latin (English, Finnish, Dutch), Gurmukhi,
Bengali and the Arabic script of Urdu.
"""
from __future__ import annotations

import unicodedata

import pytest

from shared import names
from shared.identity import InvalidPlayerNameError, validate_player_name

ZWJ, ZWNJ = "\u200d", "\u200c"
NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731

ACCEPTED = {  # as typed -> as kept
    "alice": "alice",
    "Bot Slayer_2-b": "Bot Slayer_2-b",
    "  Mary   Ann ": "Mary Ann",  # spaces trimmed and collapsed
    "Mary\u3000Ann": "Mary Ann",  # any space is one ASCII space
    "Äijä": "Äijä",
    NFD("Äijä"): "Äijä",  # decomposed: kept composed
    "Väinämöinen": "Väinämöinen",
    "Ĳsbrand": "IJsbrand",  # the profile's normalisation is NFKC: compatibility forms are unfolded
    "ｆｕｌｌ": "full",
    "Sinterklaas/Piet.": "Sinterklaas/Piet.",  # symbols and punctuation are letters of a nickname
    "ਗੁਰਪ੍ਰੀਤ": "ਗੁਰਪ੍ਰੀਤ",
    "ਸਿੰਘ": "ਸਿੰਘ",
    "জয়": "জয়",
    "জ\u09df": "জয়",  # YYA composed: NFC writes it decomposed (a composition exclusion)
    f"ক্{ZWJ}ষ": f"ক্{ZWJ}ষ",  # a joiner after a virama: the half form the script needs
    f"ক্{ZWNJ}ষ": f"ক্{ZWNJ}ষ",
    f"ਕ੍{ZWJ}ਯ": f"ਕ੍{ZWJ}ਯ",
    "عمران": "عمران",
    f"ع{ZWNJ}مران": f"ع{ZWNJ}مران",  # a non-joiner between joining letters (Urdu)
    "علی خان": "علی خان",
    "x" * 32: "x" * 32,
    "ਗੁ" * 16: "ਗੁ" * 16,  # 32 code points
}

REFUSED = [
    "", "\u3000 ", "x" * 33, "ਗੁ" * 16 + "ਕ",  # empty, or longer than 32 once normalised
    "Bot\u202e", "\u202dBob", "a\u2066b\u2069", "\u200fعمران", "a\u200eb", "\u061cعلی",  # bidi controls
    "two\nlines", "bell\x07", "tab\there", "\x1b[31mred", "nul\x00", "c1\x9b",  # controls
    "zero\u200bwidth", "soft\u00adhyphen", "\ufeffbom", "word\u2060joiner",  # format characters
    # joiners where no script needs them
    f"a{ZWJ}b", f"Äi{ZWNJ}jä", f"{ZWJ}জয়", f"জ{ZWJ}য়", f"ਸਿੰ{ZWNJ}ਘ", f"{ZWNJ}عمران", f"عمران{ZWNJ}",
    "\ue000private", "\U000e0041tag", "surrogate\ud800",  # private use, tags, lone surrogates
    None, 7, b"bytes",
]

SAME = [  # pairs that are one name
    ("Bot", "bot"), ("Bot", "BOT"),
    ("Bot", "Воt"), ("Bot", "ВОТ"), ("alice", "аlice"), ("Alice", "АLICE"),  # Cyrillic look-alikes
    ("Bot", "B0t"), ("Bill", "BiII"), ("bill", "BiII"), ("Bill", "Bi11"), ("modern", "rnodern"),  # Latin look-alikes
    ("Äijä", NFD("Äijä")), ("Äijä", "ÄIJÄ"),
    ("IJsbrand", "Ĳsbrand"), ("Mary Ann", "  mary  ann"),
    ("জয়", "জ\u09df"), ("ক্ষ", f"ক্{ZWJ}ষ"), ("ক্ষ", f"ক্{ZWNJ}ষ"),  # Bengali variants
    ("ਕ੍ਯ", f"ਕ੍{ZWJ}ਯ"),
    ("عمران", f"ع{ZWNJ}مران"), ("علی", "على"),  # Urdu: joiners and the two yehs
]

DIFFERENT = [
    ("Anna", "Ana"), ("Äijä", "Aija"), ("Bot", "Bat"), ("Jan", "Jaan"),
    ("জয়", "জয"), ("ਸਿੰਘ", "ਸਿੰਗ"), ("عمران", "عمر"), ("ਸਿੰਘ", "सिंघ"),
]


def _same(a: str, b: str) -> bool:
    mine, theirs = (names.same_name_keys(names.normalise(name)) for name in (a, b))
    return mine[0] == theirs[0] or bool(set(mine[1:]) & set(theirs[1:]))


@pytest.mark.parametrize(("typed", "kept"), ACCEPTED.items(), ids=range(len(ACCEPTED)))
def test_a_name_in_any_script_is_accepted_and_kept_normalised(typed, kept):
    assert names.normalise(typed) == kept
    assert validate_player_name(kept) == kept  # an import or audit accepts what the API keeps


@pytest.mark.parametrize("name", REFUSED, ids=range(len(REFUSED)))
def test_controls_format_and_bidi_characters_and_needless_joiners_are_refused(name):
    with pytest.raises(names.InvalidNameError):
        names.normalise(name)
    with pytest.raises(InvalidPlayerNameError):
        validate_player_name(name)


@pytest.mark.parametrize(("a", "b"), SAME, ids=range(len(SAME)))
def test_names_that_compare_equal_or_look_alike_are_one_name(a, b):
    assert _same(a, b) and _same(b, a)


@pytest.mark.parametrize(("a", "b"), DIFFERENT, ids=range(len(DIFFERENT)))
def test_names_that_differ_are_two(a, b):
    assert not _same(a, b)


@pytest.mark.parametrize(("text", "expected"), [
    ("paypal", "paypal"), ("раураl", "paypal"), ("Воt", "Bot"), ("rn", "rn"), ("m", "rn"),
    ("I1l|", "llll"), ("Ä", NFD("Ä")), (f"a{ZWJ}b", "ab"),
])
def test_the_skeleton_maps_known_confusables_to_one_prototype(text, expected):
    assert names.skeleton(text) == expected


def test_a_name_kept_before_any_script_stays_valid_for_imports_and_audits():
    with pytest.raises(names.InvalidNameError):
        names.normalise("   ")  # the API refuses it now, but may have kept it before
    for old in (" Bob", "a  b", "   ", "x_-9"):  # typed so, accepted so, by the ASCII rule of before
        assert validate_player_name(old) == old
    with pytest.raises(InvalidPlayerNameError):
        validate_player_name(NFD("Äijä"))  # not the form the API keeps
    with pytest.raises(InvalidPlayerNameError):
        validate_player_name("bob\n")
