"""Every event type's version steps, in one place: the upcasters the codec reads old events with.

An event whose stored fields change (a field renamed, removed, retyped, or added without a
default every old event can take) gets a step here, beside its type's other steps:

    @UPCASTERS.upcaster("player_joined", from_version=1)
    def _player_name_became_name(data):  # version 1 called it player_name
        data["name"] = data.pop("player_name")
        return data

and with it a new version: the type's current version is 1 + its steps, and writes use it.
``tests/golden/test_fingerprints.py`` fails until the new version's fields are recorded
(see docs/architecture.md, "Evolving an event").
"""
from __future__ import annotations

from shared.rules import EVENT_TYPES

from .upcasting import Upcasters

UPCASTERS = Upcasters(EVENT_TYPES)

# A field added with a default that old events lack (match_created's private and capped,
# match_won's seed and reason) is read by that default under version 1; see
# tests/golden/README.md for why those stayed version 1.


@UPCASTERS.upcaster("match_created", from_version=1)
def _match_created_names_out(data):
    """Schema 2 seats the creator by id only (names are the player directory's, so a rename or
    an erasure touches no event), and says whether the match is rated and the bot's level:
    no match of schema 1 was rated, and none recorded a level."""
    data.pop("creator_name", None)
    data.setdefault("rated", False)
    data.setdefault("bot_level", None)
    return data


@UPCASTERS.upcaster("player_joined", from_version=1)
def _player_joined_names_out(data):
    """Schema 2 seats the joiner by id only."""
    data.pop("player_name", None)
    return data
