"""A private match's invite: the code its creator passes on, the only way in for anyone else.

The invite is a keyed hash of the match's secret seed (HMAC-SHA256, cut to 22 URL-safe
characters, 132 bits), so there is nothing new to store, to lose or to keep in step: the
seed already lives outside the stream (:mod:`shared.seeds`), read by the command service
alone, and every API process derives the same code from it. The creator's view can carry
the code again at every read (a reloaded page still has its link); no event, no read
model and no export without the seed holds it. The seed is revealed when the match is
won, and so the invite can be worked out then: by that time the seat it opened is taken.
A guess is compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from shared.rules import MatchState, Seat

from ..players import Player
from .application_errors import SeedUnavailableError
from .matches import Matches

INVITE_CHARS = 22  # base64url characters kept: 132 bits, beyond guessing under any rate limit


def invite_of(matches: Matches, match_id: str) -> str | None:
    """The match's invite code; None if this server does not hold its seed (a match imported
    without it: nobody can be let in by a code, and nothing may be keyed by an empty secret)."""
    try:
        seed = matches.chances.of(match_id).seed
    except SeedUnavailableError:
        return None
    digest = hmac.new(bytes.fromhex(seed), b"truc-invite:" + match_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:INVITE_CHARS]


def admits(matches: Matches, match_id: str, invite: str | None) -> bool:
    """Whether ``invite`` is the match's code (None, or any other string: no)."""
    if not isinstance(invite, str) or len(invite) != INVITE_CHARS:
        return False
    expected = invite_of(matches, match_id)
    return expected is not None and hmac.compare_digest(invite.encode(), expected.encode())


def shown_to(state: MatchState, player: Player | None) -> bool:
    """Whether ``player`` may reach the match without its invite: anyone once it is joined or
    if it is public; while a private match waits, its creator alone."""
    if not state.invite_only:
        return True
    creator = state.players[Seat.A.index]
    return player is not None and creator is not None and creator.id == player.id
