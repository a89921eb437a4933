"""Characters that show as nothing: a name holding one looks like the name without it.

``Bot`` followed by a Braille blank is drawn exactly like ``Bot``, so a name may hold no
such character (:func:`shared.names.normalise` refuses it) and the confusable skeleton
drops them (:func:`shared.names.skeleton`), so that a name kept before they were refused
still collides with the name it imitates.

- Unicode's ``Default_Ignorable_Code_Point`` (the derived property of
  ``DerivedCoreProperties.txt``: 4,174 code points, among them the joiners, the variation
  selectors, the tags, U+180E and the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0).
  Python's ``unicodedata`` has no such property; ``precis-i18n`` (which the name profile
  uses) keeps a copy of that table, read here through its ``UnicodeData``.
- Characters that are not default-ignorable, yet are drawn blank (:data:`DRAWN_BLANK`).
- Spaces other than U+0020 (``U+00A0``, ``U+2000-U+200A``, ``U+205F``, ``U+3000``, ...) are
  not here: the name profile maps each of them to one ASCII space before anything else, and
  trims and collapses spaces, so ``Bot`` followed by an ideographic space is ``Bot``.
"""
from __future__ import annotations

from functools import lru_cache

from precis_i18n.unicode import UnicodeData

_UCD = UnicodeData()

DRAWN_BLANK = frozenset({
    "\u2800",  # BRAILLE PATTERN BLANK (So): a cell with no dot raised
    "\U0001d159",  # MUSICAL SYMBOL NULL NOTEHEAD (So)
    "\U00016fe4",  # KHITAN SMALL SCRIPT FILLER (Mn)
    "\u115f", "\u1160", "\u3164", "\uffa0",  # the Hangul fillers (default-ignorable as well)
})
JOINERS = frozenset({"\u200c", "\u200d"})  # ZWNJ, ZWJ: default-ignorable, but some scripts need them


def default_ignorable(char: str) -> bool:
    """Whether ``char`` has Unicode's ``Default_Ignorable_Code_Point`` property."""
    return _UCD.default_ignorable(ord(char))


@lru_cache(maxsize=4096)  # asked of every character of a name, several times a registration
def shows_nothing(char: str) -> bool:
    """Whether ``char`` is drawn as nothing, or as a blank: default-ignorable, or drawn blank."""
    return char in DRAWN_BLANK or default_ignorable(char)


def first_hidden(text: str) -> str | None:
    """The first character of ``text`` that shows nothing, the joiners aside (the name profile
    lets one stand only where a script needs it, after a virama or between joining letters)."""
    return next((char for char in text if char not in JOINERS and shows_nothing(char)), None)
