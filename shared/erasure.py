"""Erasing a player: their matches left, their tokens revoked, their name replaced by a placeholder everywhere.

The player's name lives in one place a fact may hold it (the directory, ``shared.directory``),
and in copies made to serve it: the read models (rewritten by
:func:`shared.readmodels.renaming.rename_in_read_models`), the archive's records
(:mod:`shared.archive.erasing`) and the API processes' caches (told on ``keys.PLAYERS_RENAMED``).
An erasure takes the steps in an order that is safe to repeat after a crash:

1. the player's unfinished matches: a playing one is resigned (R31), a waiting one they created
   is cancelled (R32), each an ordinary command recorded in the match's stream;
2. the directory: the name becomes the placeholder (``erased player 7``: stable, numbered once),
   the player hash keeps ``erased`` (the record an import consults: an erased id is never named
   again), its current token is revoked on every API process, its name's claims are released;
3. the copies: read models, archive, caches;
4. the matches recorded in schema 1, whose events hold the name itself: each such stream (and
   archived record) rewritten without it and re-chained, the match keeping a record of its old
   and new chain heads that the audit reports (:mod:`shared.rechaining`).

The placeholder form is no name anyone may register or take (:func:`looks_like_placeholder`).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from shared import keys, names
from shared.archive.erasing import rechain_in_archive, rename_in_archive
from shared.codec import encode
from shared.eventstore import ConcurrencyError
from shared.fold import FoldedMatch, fold
from shared.name_claims import kept_name_claims, release_all
from shared.readmodels.generations import read_pointer
from shared.readmodels.renaming import listed_matches, rename_in_read_models
from shared.rechaining import ERASURE, rechain_stream
from shared.revocations import revoke
from shared.rules import RuleError, Seat, Status, command_for, step
from shared.rules.chance import SeededChance
from shared.seeds import Seeds, SeedVault

PLACEHOLDER = "erased player {number}"
_PREFIX = "erased player"
_LEFT_BY = {Status.PLAYING: "resign", Status.WAITING: "cancel"}
_RETRIES = 20


class InAMatchError(Exception):
    """The player sits in an unfinished match and the server is set to refuse their erasure until it ends."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


@dataclass(frozen=True)
class Erased:
    """What an erasure changed in the directory: the name it held before, its placeholder now, and the
    tokens it revoked (hashes: a process that remembers them forgets them at once, unheard)."""

    player_id: str
    old_name: str
    placeholder: str
    revoked: tuple[str, ...] = ()


def placeholder(number: int) -> str:
    """The name an erased player is shown by."""
    return PLACEHOLDER.format(number=number)


def looks_like_placeholder(name: str) -> bool:
    """Whether a valid name reads as an erased player's placeholder (case and look-alikes aside)."""
    prefixes = names.same_name_keys(_PREFIX)
    return any(form.startswith(prefix) for form, prefix in zip(names.same_name_keys(name), prefixes))


def is_erased(client: Any, player_id: str) -> bool:
    """Whether the directory remembers ``player_id`` as erased."""
    return bool(client.hexists(keys.player(player_id), "erased"))


def unfinished_matches(client: Any, player_id: str, generation: int) -> dict[str, list[str]]:
    """The player's listed waiting and playing matches (by status) in the generation served."""
    pipe = client.pipeline(transaction=False)
    for status in (Status.WAITING.value, Status.PLAYING.value):
        pipe.zrange(keys.player_matches(player_id, status, generation), 0, -1)
    waiting, playing = pipe.execute()
    return {"waiting": [m.decode() for m in waiting], "playing": [m.decode() for m in playing]}


def leave_match(store: Any, seeds: Seeds, match_id: str, player_id: str, notify: Callable[[str], None]) -> bool:
    """Resign the player's playing match, or cancel the waiting one they created; True if an event was recorded.

    Decided by the rules engine on the stream as it is, appended at its version (a race decides again),
    with the match's seeded chance: the end of a match reveals its seed.
    """
    seed = seeds.get(match_id)
    chance = None if seed is None else SeededChance(seed)
    for _ in range(_RETRIES):
        match = fold(FoldedMatch(match_id), store.read(match_id))
        seat = match.state.seat_of(player_id)
        action = _LEFT_BY.get(match.state.status)
        if seat is None or action is None or (action == "cancel" and seat is not Seat.A):
            return False
        try:
            stepped = step(match.state, command_for(seat, {"type": action}), chance)
        except RuleError:
            return False
        try:
            appended = store.append_events(match_id, [encode(e) for e in stepped.events], match.version)
        except ConcurrencyError:
            continue
        if appended.ask_catch_up:
            notify(match_id)
        return True
    return False


def erase_from_directory(client: Any, player_id: str) -> Erased | None:
    """The player's name replaced by its placeholder, its current token revoked, its claims released;
    None if no such player. Repeating it on an erased player keeps its placeholder (and releases again)."""
    fields = client.hgetall(keys.player(player_id))
    if not fields:
        return None
    name = fields[b"name"].decode()
    if b"erased" in fields:
        return Erased(player_id, name, name)
    revoked = tuple(_token_hashes(client, player_id, fields))
    revoke(client, revoked)  # first: whatever else fails, no token works
    client.delete(keys.player_sessions(player_id), keys.player_seen(player_id))
    release_all(client, player_id, kept_name_claims(name))  # before the name goes: a repeat knows them still
    shown = placeholder(int(client.incr(keys.ERASED_PLAYERS)))
    client.hset(keys.player(player_id), mapping={"name": shown, "erased": "1"})
    client.hdel(keys.player(player_id), "token_hash", "password_hash")
    return Erased(player_id, name, shown, revoked)


def _token_hashes(client: Any, player_id: str, fields: dict[bytes, bytes]) -> list[str]:
    """Every token the player holds: the registration's (its current one) and each device's session's."""
    hashes = {fields[b"token_hash"].decode()} if b"token_hash" in fields else set()
    for line in client.hvals(keys.player_sessions(player_id)):
        hashes.add(orjson.loads(line)["token_hash"])
    return sorted(hashes)


def erase_player(client: Any, store: Any, archive: Any, player_id: str, notify: Callable[[str], None],
                 resign: bool = True) -> Erased | None:
    """The whole erasure (see the module doc); None if no such player. ``resign``: False refuses
    (InAMatchError) while the player sits in an unfinished match, recording nothing."""
    if not client.exists(keys.player(player_id)):
        return None
    unfinished = unfinished_matches(client, player_id, read_pointer(client).generation)
    left = [*unfinished["playing"], *unfinished["waiting"]]
    if not resign and (seated := [m for m in left if _seated_unfinished(store, m, player_id)]):
        raise InAMatchError(seated[0])
    erased = erase_from_directory(client, player_id)  # first: the resignations' projections name the placeholder
    if resign:
        for match_id in left:
            leave_match(store, SeedVault(client), match_id, player_id, notify)
    if erased is not None:
        spread_name(client, archive, player_id, erased.placeholder)
        rechain_without(client, archive, player_id)
    return erased


def rechain_without(client: Any, archive: Any, player_id: str) -> int:
    """Every match of the player's lists whose schema-1 events name them, in Redis or archived,
    rewritten without the name and re-chained (:mod:`shared.rechaining`); how many."""
    now_ms = int(time.time() * 1000)
    match_ids = listed_matches(client, player_id, read_pointer(client).generation)
    in_streams = sum(rechain_stream(client, m, {player_id}, ERASURE, now_ms) is not None for m in match_ids)
    return in_streams + rechain_in_archive(client, archive, match_ids, player_id, now_ms)


def spread_name(client: Any, archive: Any, player_id: str, name: str) -> None:
    """The directory's new name of ``player_id`` written into every copy made to serve it."""
    rename_in_read_models(client, player_id, name)
    rename_in_archive(client, archive, listed_matches(client, player_id, read_pointer(client).generation),
                      player_id, name)


def _seated_unfinished(store: Any, match_id: str, player_id: str) -> bool:
    match = fold(FoldedMatch(match_id), store.read(match_id))
    return match.state.seat_of(player_id) is not None and not match.state.status.over
