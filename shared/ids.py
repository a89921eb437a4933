"""Random ids for matches and players: URL- and key-safe, and never starting with '-'
(a leading dash would read as an option on any command line, e.g. `truc audit -x…`)."""
from __future__ import annotations

import secrets


def new_id(nbytes: int = 9) -> str:
    while True:
        candidate = secrets.token_urlsafe(nbytes)
        if not candidate.startswith("-"):
            return candidate
