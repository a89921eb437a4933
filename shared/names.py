"""Player names in any script: what one may hold, its one written form, and when two are the same.

- What a name may hold and how it is written: the PRECIS Nickname profile (RFC 8266, through
  ``precis-i18n``). It refuses control, format and bidi characters (a zero-width joiner or
  non-joiner only where the script needs it: after a virama, between joining letters),
  maps every space to one ASCII space, trims and collapses them, and normalises to NFC.
  The name kept is that form, 1-32 characters (code points) long, holding no character that
  shows as nothing (:mod:`shared.blank_characters`: ``Bot`` and a Braille blank would look
  like ``Bot``); the joiners the profile allows in their place are the one exception.
- When two names are the same, so that only one player may hold it: when their comparison
  forms (the profile's case-mapped form) are equal, or when they look alike: equal
  confusable skeletons (UTS #39, from the confusables data of ``confusable-homoglyphs``).
  Case aside: two names look alike when a look-alike form of one (:func:`lookalike_forms`)
  is one of the other's, so ``Воt`` and ``ВОТ`` (Cyrillic) are ``Bot``, and ``АLICE`` is
  ``Alice``. What shows as nothing does not count: the skeleton drops every default-ignorable
  character (the joiners) and every character drawn blank, so a name kept before these were
  refused (``alice`` and a Braille blank) is ``alice``.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from precis_i18n import get_profile

from shared.blank_characters import first_hidden, shows_nothing

MAX_CHARS = 32
RULE = ("1-32 characters of the PRECIS Nickname profile (RFC 8266): letters, digits, "
        "symbols and spaces in any script; no control, format, bidi or invisible characters.")
# Which skeleton the stored look-alike claims were made with: 2 drops the characters drawn
# blank too. Names kept under an older one get this one's claims once, at start-up.
SKELETON_VERSION = 2
_PRESERVED = get_profile("NicknameCasePreserved")
_MAPPED = get_profile("NicknameCaseMapped")
_BIDI_MARKS = str.maketrans("", "", "\u200e\u200f")  # the data quotes right-to-left characters between them


class InvalidNameError(ValueError):
    """A name the profile refuses, or one that is empty or longer than 32 characters once normalised."""


def normalise(name: object) -> str:
    """The name as it is kept and shown (NFC, spaces trimmed and collapsed), or InvalidNameError."""
    written = profile_form(name)
    hidden = first_hidden(written)
    if hidden is not None:
        raise InvalidNameError(f"invalid name {name!r}: U+{ord(hidden):04X} shows as nothing")
    if unicodedata.category(written[0]).startswith("M"):  # a mark alone draws itself onto the text before it
        raise InvalidNameError(f"invalid name {name!r}: it begins with a combining mark")
    return written


def profile_form(name: object) -> str:
    """The name as the profile writes it, 1-32 characters, or InvalidNameError: what the API
    kept before characters that show as nothing were refused (an old name may hold them)."""
    if not isinstance(name, str):
        raise InvalidNameError(f"not a name: {name!r}")
    try:
        written = _PRESERVED.enforce(name)
    except UnicodeError as error:
        raise InvalidNameError(f"invalid name {name!r}: {error.reason}") from None
    if not 1 <= len(written) <= MAX_CHARS:
        raise InvalidNameError(f"invalid name {name!r}: {len(written)} characters")
    return written


def comparison_form(name: str) -> str:
    """The profile's comparison form of a valid name (NFKC, case-folded)."""
    return _MAPPED.enforce(name)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the data's two-way lists.

    A character listed with one single look-alike is a source mapped to that prototype,
    unless the prototype lists it alone in return: then either could be the prototype, and
    the lesser of the two stands for both (the same classes as UTS #39's).
    """
    from confusable_homoglyphs.confusables import confusables_data  # 45 ms to load: only names need it

    data = {key.translate(_BIDI_MARKS): [entry["c"].translate(_BIDI_MARKS) for entry in entries]
            for key, entries in confusables_data.items()}
    table = {}
    for char, alike in data.items():
        if len(char) != 1 or len(alike) != 1 or alike[0] == char:
            continue
        target = alike[0]
        table[char] = min(char, target) if data.get(target) == [char] else target
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton: NFD, default-ignorable characters dropped (and those drawn blank),
    prototypes, NFD again."""
    prototypes = _prototypes()
    mapped = (prototypes.get(char, char) for char in unicodedata.normalize("NFD", text) if not shows_nothing(char))
    return unicodedata.normalize("NFD", "".join(mapped))


def lookalike_forms(name: str) -> tuple[str, str]:
    """What a valid name looks like, case aside: two skeletons, because a skeleton keeps case.

    The skeleton of its case-folded skeleton (``Воt``, ``ВОТ``, ``BiII`` look like ``bot``,
    ``bot``, ``bill``), and the skeleton of its case-folded self (``АLICE``: ``alice``).
    """
    return skeleton(skeleton(name).casefold()), skeleton(name.casefold())


@lru_cache(maxsize=4096)  # a registration asks for a name's keys more than once (claims, placeholder look)
def same_name_keys(name: str) -> tuple[str, ...]:
    """The forms under which a valid name is unique: its comparison form, then its look-alike forms."""
    return (comparison_form(name), *dict.fromkeys(lookalike_forms(name)))
