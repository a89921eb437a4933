"""Registered players and their bearer tokens (only a hash of each token is stored)."""
from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import redis

from shared import keys, names
from shared import name_claims as claims_of_names
from shared.erasure import looks_like_placeholder
from shared.ids import new_id
from shared.name_claims import give_up, kept_name_claims, name_claims
from shared.revocations import revoke

from .token_cache import TokenCache


@dataclass(frozen=True)
class Player:
    id: str
    name: str


_CURRENT_TOKEN = "token_hash"  # a player's field: the hash of its current token (a revocation of all of them finds it)
RESERVED_NAMES = {"bot"}  # the built-in bot's, registered by configuration rather than by a client


log = logging.getLogger(__name__)


class NameTakenError(Exception):
    """Another player already has this name: the same comparison form, or a look-alike (shared/names.py)."""


def token_hash(token: str) -> str:
    """What is stored and published of a token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


# Every claim of a reserved name: a name holding any of them is taken (its comparison form or a look-alike).
_RESERVED_CLAIMS = frozenset(key for reserved in RESERVED_NAMES for key in name_claims(reserved))


class PlayerRegistry:
    def __init__(
        self, client: Any, known_tokens: TokenCache[Player] | None = None,
        trusted: Callable[[], bool] = lambda: True,
    ) -> None:
        self._client = client
        # Every authenticated request looks its token up. A remembered answer may be up to
        # the cache's TTL old, which is safe because a player's token is never pointed at
        # another player, and a revoked token is forgotten by every process that hears it
        # (shared/revocations.py); ``trusted`` says whether this process hears them now (its
        # Revocations; a registry given none, in tests and tools, trusts its TTL). Only found
        # players are remembered: an unknown token always asks Redis, so a player registered
        # since is found at once, and forged tokens cannot crowd real ones out. Keyed by the
        # token's hash, like Redis.
        self._known_tokens: TokenCache[Player] = TokenCache() if known_tokens is None else known_tokens
        self._trusted = trusted

    def register(self, name: str) -> tuple[Player, str]:
        """A new player and its bearer token (shown once, never stored); the name is kept normalised."""
        name = names.normalise(name)
        claims = name_claims(name)
        if _RESERVED_CLAIMS.intersection(claims) or looks_like_placeholder(name):
            raise NameTakenError(name)
        player = Player(new_id(12), name)
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        # One round trip, in this order. The name is claimed last (both of its forms): a lost
        # race undoes the writes before it, and a crash before the claims leaves only a player
        # nobody can name or log in as twice.
        pipe = self._client.pipeline(transaction=False)
        pipe.hset(keys.player(player.id), mapping={"id": player.id, "name": name, _CURRENT_TOKEN: hashed})
        pipe.set(keys.player_token(hashed), player.id)
        for claim in claims:
            pipe.set(claim, player.id, nx=True)
        # A claim that answers "taken" may be our own, replayed by the client after a lost reply.
        won = [claimed or self._client.get(claim) == player.id.encode()
               for claim, claimed in zip(claims, pipe.execute()[2:])]
        if not all(won):
            ours = [claim for claim, mine in zip(claims, won) if mine]
            self._client.delete(keys.player(player.id), keys.player_token(hashed), *ours)
            raise NameTakenError(name)
        self._known_tokens.put(hashed, player)  # its first request need not ask Redis
        return player, token

    def rename(self, player: Player, name: str, reserve_seconds: int) -> Player:
        """``player`` named ``name`` (kept normalised), by the rules of a registration; NameTakenError if
        another player holds it, or held it lately (a name given up stays theirs ``reserve_seconds``).

        The new name is claimed first (all its forms, or none), then the directory names the player
        by it, then the old name's claims are given up (expiring): a crash between leaves the player
        holding both names for a while, never neither.
        """
        name = names.normalise(name)
        claims = name_claims(name)
        if _RESERVED_CLAIMS.intersection(claims) or looks_like_placeholder(name):
            raise NameTakenError(name)
        current = self.by_id(player.id) or player
        if not claims_of_names.claim(self._client, player.id, claims):
            raise NameTakenError(name)
        self._client.hset(keys.player(player.id), "name", name)
        if current.name != name:
            give_up(self._client, player.id, kept_name_claims(current.name), claims, reserve_seconds)
        return Player(player.id, name)

    def ensure(self, player_id: str, name: str, token: str) -> Player:
        """A player with a fixed id and a token given by configuration (the built-in bot)."""
        player = Player(player_id, name)
        self.seat_token(player_id, name, token)
        same, *lookalikes = name_claims(name)
        claimed = self._client.set(same, player_id, nx=True)
        if not claimed and self._client.get(same) != player_id.encode():
            raise NameTakenError(name)
        # Its look-alike forms only if free: an old player's name that looks like it (registered
        # before look-alikes counted) keeps those claims, and the configured player its own name.
        for lookalike in lookalikes:
            self._client.set(lookalike, player_id, nx=True)
        return player

    def claim_old_lookalikes(self) -> None:
        """Give the names kept under an older skeleton their claims, once per skeleton (idempotent).

        Names registered before look-alikes counted hold one claim, ``truc:name:<case-folded
        name>``; names registered before the skeleton dropped the characters drawn blank
        (``alice`` and a Braille blank) hold a look-alike claim that is not ``alice``'s. The
        API's launcher, before it serves (no request waits on the scan), reads every name
        claim and adds each name's look-alike claims of today's skeleton (set only if free:
        two old names that look alike both stay, the first scanned holding the look-alike
        form), then marks the work done with :data:`shared.names.SKELETON_VERSION`. A name
        registered meanwhile claims its forms itself.
        """
        done = self._client.get(keys.LOOKALIKES_CLAIMED)
        if done is not None and int(done) >= names.SKELETON_VERSION:
            return
        for key in self._client.scan_iter(match=keys.NAME_CLAIMS_PATTERN, count=1000):
            player_id = self._client.get(key)
            player = None if player_id is None else self.by_id(player_id.decode())
            try:  # as the profile writes it: an old name may hold a blank today's rule refuses
                claims = [] if player is None else name_claims(names.profile_form(player.name))
            except names.InvalidNameError:  # an old name the profile refuses (all spaces): its claim holds it
                claims = []
            for claim in claims:
                self._client.set(claim, player_id, nx=True)
        self._client.set(keys.LOOKALIKES_CLAIMED, names.SKELETON_VERSION)

    def seat_token(self, player_id: str, name: str, token: str | None) -> None:
        """Make ``token`` the configured player's only token; None: it has none.

        The player keeps the hash of its current token, so a token set before (a rotated,
        perhaps leaked secret) is deleted when another one, or none, is configured.
        """
        new_hash = None if token is None else token_hash(token)
        old_hash = self._client.hget(keys.player(player_id), _CURRENT_TOKEN)
        if new_hash is not None:  # the new token works before the old one stops
            self._client.set(keys.player_token(new_hash), player_id)
            self._client.hset(keys.player(player_id), mapping={"id": player_id, "name": name,
                                                                _CURRENT_TOKEN: new_hash})
        elif old_hash is not None:
            self._client.hdel(keys.player(player_id), _CURRENT_TOKEN)
        if old_hash is not None and old_hash.decode() != new_hash:
            revoke(self._client, [old_hash.decode()])
            self._known_tokens.forget(old_hash.decode())

    def rotate(self, player: Player, token: str) -> str | None:
        """A new token for ``player`` in place of ``token``, which stops working everywhere; None if
        ``token`` was no longer valid (rotated or revoked meanwhile: only one rotation of a token wins).

        The new token works before the old one stops: a crash between the two leaves a token nobody
        was given, never a player with none. The player keeps the hash of its current token, so a
        later revocation of all its tokens (erasure) finds it.
        """
        new_token, old_hash = secrets.token_urlsafe(32), token_hash(token)
        new_hash = token_hash(new_token)
        self._client.set(keys.player_token(new_hash), player.id)
        if not self._client.delete(keys.player_token(old_hash)):
            self._client.delete(keys.player_token(new_hash))
            return None
        self._known_tokens.forget(old_hash)
        self._client.hset(keys.player(player.id), _CURRENT_TOKEN, new_hash)
        try:
            revoke(self._client, [old_hash])  # its key is gone already: this tells the other processes
        except redis.RedisError as error:  # the new token is the player's now: it must reach them
            log.warning("could not announce a rotated token (processes forget it within their TTL): %s", error)
        return new_token

    def forget_tokens(self, token_hashes: Iterable[str]) -> None:
        """Forget tokens revoked by this process (revocations it publishes reach it later, by its subscriber)."""
        for hashed in token_hashes:
            self._known_tokens.forget(hashed)

    def by_token(self, token: str) -> Player | None:
        hashed = token_hash(token)
        trusted = self._trusted()
        player = self._known_tokens.get(hashed) if trusted else None
        if player is None:
            seen = self._known_tokens.generation  # a revocation heard during the lookup: not remembered
            player_id = self._client.get(keys.player_token(hashed))
            player = None if player_id is None else self.by_id(player_id.decode())
            if player is not None:
                self._known_tokens.put(hashed, player, seen)
        return player

    def by_id(self, player_id: str) -> Player | None:
        try:
            fields = self._client.hgetall(keys.player(player_id))
        except ValueError:  # not a well-formed id: no such player
            return None
        if not fields:
            return None
        return Player(fields[b"id"].decode(), fields[b"name"].decode())
