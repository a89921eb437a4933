"""The keys a player's name holds in Redis, so that no other player takes it: claimed, given up, released.

A name is held by its claims (:func:`name_claims`: its comparison form's key and its
look-alike forms', each holding the player id). A rename claims the new name's forms
first (all or none), then gives up the old name's: those claims stay the player's for
``NAME_RESERVE_DAYS`` (an expiring key) so nobody else can take the name at once and pass
for them; the player may take it back meanwhile. An erasure releases every claim the
player holds, the given-up ones too: an erased name leaves no key behind.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared import keys, names


def name_claims(name: str) -> list[str]:
    """The keys a valid name holds: its comparison form's, then its look-alike forms'."""
    comparison, *lookalikes = names.same_name_keys(name)
    return [keys.player_name(comparison), *(keys.player_name(form, looks=True) for form in lookalikes)]


def kept_name_claims(name: str) -> list[str]:
    """The claims a name kept in the directory holds (one kept before blanks were refused: its profile form's)."""
    try:
        return name_claims(names.profile_form(name))
    except names.InvalidNameError:  # an old name the profile refuses (all spaces): its one case-folded claim
        return [keys.player_name(name)]


def claim(client: Any, player_id: str, claims: Sequence[str]) -> bool:
    """Hold every key of ``claims`` for ``player_id`` (one it holds already counts, kept for good); False,
    holding none of the new ones, if another player holds any of them."""
    ours = player_id.encode()
    won: list[str] = []
    for key in claims:
        if client.set(key, player_id, nx=True):
            won.append(key)
        elif client.get(key) == ours:
            client.persist(key)  # a name it gave up and takes back: no longer expiring
        else:
            for key in won:  # one key a command: claims live in any cluster slot
                client.delete(key)
            return False
    return True


def give_up(client: Any, player_id: str, claims: Sequence[str], keep: Sequence[str], seconds: int) -> None:
    """Let ``claims`` (an old name's) expire in ``seconds``, except those in ``keep`` (the new name's);
    the player's list of given-up claims remembers them for its erasure."""
    ours = player_id.encode()
    given = [key for key in claims if key not in set(keep) and client.get(key) == ours]
    if not given:
        return
    for key in given:
        if seconds <= 0:
            client.delete(key)
        else:
            client.expire(key, seconds)
    if seconds <= 0:
        return
    client.sadd(keys.player_given_up(player_id), *given)
    client.expire(keys.player_given_up(player_id), seconds)


def release_all(client: Any, player_id: str, claims: Sequence[str]) -> None:
    """Delete ``claims`` (the current name's) and every claim the player gave up, where they are still its own."""
    ours = player_id.encode()
    given = [key.decode() for key in client.smembers(keys.player_given_up(player_id))]
    for key in dict.fromkeys([*claims, *given]):
        if client.get(key) == ours:
            client.delete(key)
    client.delete(keys.player_given_up(player_id))
