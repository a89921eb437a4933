"""Which language a request or a terminal gets (API.md "Languages")."""

import pytest

from shared.i18n import DEFAULT, direction, from_environment, negotiate, supported, translator


@pytest.mark.parametrize(("query", "header", "expected"), [
    (None, None, "en"),
    ("fi", "nl", "fi"),  # ?lang= first
    ("FI", None, "fi"),
    ("xx", "nl", "nl"),  # an unsupported ?lang= is ignored, not an error
    (None, "nl;q=0.5, fi;q=0.9, en;q=0.1", "fi"),  # by q-value, not by order
    (None, "de, bn-IN;q=0.2", "bn"),  # a region falls back to its language
    (None, "ur;q=0, pa;q=0.3", "pa"),  # q=0 means "not this one"
    (None, "de, es", "en"),
    (None, "de, fr-CA;q=0.8, ca;q=0.9", "ca"),  # French and Catalan are the game's own languages
    ("fr", "ca", "fr"),
    (None, "*", "en"),
    (None, ";;;,q=ä", "en"),  # garbage is no language
])
def test_lang_then_accept_language_by_quality_then_english(query, header, expected) -> None:
    assert negotiate(query, header) == expected


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LANG": "fi_FI.UTF-8"}, "fi"),
    ({"LANG": "nl_BE.UTF-8", "LC_ALL": "ur_PK.UTF-8"}, "ur"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
])
def test_a_terminal_speaks_its_locale(environ, expected) -> None:
    assert from_environment(environ) == expected


def test_only_urdu_is_written_right_to_left() -> None:
    assert [direction(lang) for lang in ("en", "fi", "nl", "pa", "bn", "fr", "ca", "ur")] == ["ltr"] * 7 + ["rtl"]


def test_an_unknown_language_is_english_and_does_not_grow_the_cache() -> None:
    from shared.i18n import _translator
    assert supported("zz-ZZ") is None
    translator(DEFAULT)
    before = _translator.cache_info().currsize
    for n in range(50):
        assert translator(f"x{n}").lang == DEFAULT
    assert _translator.cache_info().currsize == before
