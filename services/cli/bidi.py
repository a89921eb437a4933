"""Whether this terminal draws the bidi isolates around players' names.

A name is printed between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE
(:func:`.untrusted.name_text`) so that an Urdu name does not reorder the line around it. Only
a terminal that lays out bidirectional text uses them; most others draw each as a box or a
gap beside every name. So they are written where they help: on a terminal known to do
bidi, and when the output is not a terminal at all (a file or a pipe keeps the text whole).
``TRUC_ISOLATES=1`` or ``0`` says so for a terminal this cannot tell.
"""
from __future__ import annotations

from collections.abc import Mapping

_VTE_BIDI = 5800  # VTE 0.58 (GNOME Terminal and friends) lays out bidi text


def draws_isolates(env: Mapping[str, str], is_terminal: bool) -> bool:
    """Whether names should be printed with their isolates on this output."""
    chosen = env.get("TRUC_ISOLATES", "").strip()
    if chosen in ("0", "1"):
        return chosen == "1"
    if not is_terminal:
        return True
    vte = env.get("VTE_VERSION", "")
    return (vte.isdigit() and int(vte) >= _VTE_BIDI) or "KONSOLE_VERSION" in env or "MLTERM" in env
