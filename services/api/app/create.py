"""Create a match: its creator in seat A, and an opponent in seat B at once if one is named."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from shared.bot import BOT_LEVEL, BOT_PLAYER_ID
from shared.eventstore.append_tokens import AppendToken
from shared.fold import FoldedMatch
from shared.ids import new_id
from shared.rules import CreateMatch, Seat, step
from shared.rules.chance import SeededChance

from ..players import Player
from .application_errors import AlreadySeatedError
from .join import join
from .matches import Matches
from .recording import Recorded, record


def create(
    matches: Matches, player: Player, options: Mapping[str, Any], opponent: Player | None = None,
    match_id: str | None = None, bot_level: str | None = None, token: AppendToken | None = None,
) -> Recorded:
    """A new match with ``player`` in seat A (and ``opponent`` seated in B at once); ``match_id``: its id
    if the caller named it first (to count it before it exists), else a new one; ``token``: the
    creation's append token (DuplicateAppendError if it was used, or voided, before)."""
    if opponent is not None and opponent.id == player.id:
        raise AlreadySeatedError(player.id)
    match = FoldedMatch(match_id or new_id())
    chance = SeededChance.new()
    against_bot = opponent is not None and opponent.id == BOT_PLAYER_ID
    bot_level = (bot_level or BOT_LEVEL) if against_bot else None
    stepped = step(match.state, CreateMatch(match.match_id, player.id, **options, bot_level=bot_level), chance)
    matches.chances.keep(match.match_id, chance)
    created = record(matches, match, stepped, Seat.A, token, seed=chance.seed, named=opponent is None)
    if opponent is None:
        return created
    joined = join(matches, match.match_id, opponent, accept_custom=True)  # the creator chose both
    return replace(joined, events=created.events + joined.events, seat=Seat.A)
