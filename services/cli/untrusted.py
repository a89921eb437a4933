"""Text the operator's terminal did not write: made safe to print through rich.

Player names are chosen by players, and a stream can be rewritten by anyone with Redis
access, so every string read from a match is data, never formatting. Printed as it is,
``[bold]`` would be taken as rich markup, an ESC (``\\x1b[31m``, OSC 8 hyperlinks, a new
window title) would drive the terminal, and a bidi override (U+202E) would reorder the
rest of the line so that it reads other than it is. Those characters are shown as their
escapes instead (``\\x1b``, ``\\u202e``): the operator sees that they were there, and the
line stays one line of plain text.

A player name may be in any script and prints as itself, isolated (:func:`name_text`):
between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, so that a
right-to-left name (Urdu) does not reorder the sentence around it, nor the sentence it. On a
terminal that draws the isolates as boxes they are left out (:func:`isolate_names`, :mod:`.bidi`).
"""
from __future__ import annotations

import re

from rich.markup import escape

from shared import names

# C0 and C1 controls with DEL (tab and newline too: one value, one line), the Unicode
# line and paragraph separators, and every bidi embedding, override, isolate and mark.
FSI, PDI = "\u2068", "\u2069"
_isolating = [True]  # whether name_text writes FSI ... PDI: set once for the process's terminal
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """``text`` with each control, separator and bidi character replaced by its escape."""
    return _UNSAFE.sub(lambda found: ascii(found.group())[1:-1], str(text))


def markup_text(text: object, style: str = "none") -> str:
    """``text`` as rich markup that prints exactly as :func:`printable` shows it.

    The value is wrapped in a style tag on purpose: ``rich.markup.escape`` doubles a trailing
    backslash so that a tag right after it stays a tag, and with a tag always after it that
    backslash prints once, as written.
    """
    return f"[{style}]{escape(printable(text))}[/{style}]"


def isolate_names(enabled: bool) -> None:
    """Whether :func:`name_text` isolates names from now on (the terminal's say: :func:`.bidi.draws_isolates`)."""
    _isolating[0] = enabled


def name_text(name: object, style: str = "none") -> str:
    """A player's name as rich markup: as :func:`markup_text`, isolated in FSI ... PDI (unless
    this terminal cannot draw them: :func:`isolate_names`).

    Only the two isolates written here are bidi characters: any inside ``name`` are escaped.
    """
    fsi, pdi = (FSI, PDI) if _isolating[0] else ("", "")
    return f"[{style}]{escape(fsi + printable(name) + pdi)}[/{style}]"


def file_stem(name: str) -> str:
    """A name as one file name: itself when it is letters, digits, spaces, ``_`` or ``-``.

    Any other character (``/``, ``.``, ``%``, a mark) is ``%`` and six hex digits, so no name
    climbs out of its directory, two names never share a file, and 32 characters stay short
    of 255 bytes. A valid name is normalised first: typed composed or decomposed, one file.
    """
    try:
        name = names.normalise(name)
    except names.InvalidNameError:
        pass
    return "".join(char if char.isalnum() or char in " _-" else f"%{ord(char):06x}" for char in name)
