"""Quick pairing and rematches: the command side's use cases that seat two players at once.

A seek (``POST /seeks``) joins its pool (:mod:`.seek_pool`); every pairing pass (run at once
by the request that opened a seek, and every ``PASS_SECONDS`` by each pairer, ``python -m
services.api pairer``) takes pairs out of the pools atomically, then makes each pair's match
here: created with the older seek's player in A and the other in B, dealt at once, counted
among both players' unfinished matches, and told to both through their player streams
(``paired``). A pairing whose maker died is remade by a pairer after ``RECOVER_AFTER_MS``; its
match id was fixed by the pass, so it is made once.

A pairing that falls through first voids its match: the creation's append token (:func:`_making`)
is claimed as refused in the match's own slot, so a maker that stalled past ``RECOVER_AFTER_MS``
and creates the match afterwards records nothing, and a seek reopened is never paired into two
matches (for as long as a refusal is kept: ``REFUSALS_KEPT_SECONDS``, a day). Whichever comes
first, the creation or the void, wins: the void that finds the match made lets it stand.

A seek never ends unsaid: a pass that finds one expired tells its player (``seek`` ``{"seek_id",
"status": "expired"}``), and a pairing whose match cannot be made because a player sat down in
``MAX_PLAYING`` matches since seeking falls through: that player is told (``seek`` ``{"seek_id",
"status": "dropped", "error": "TOO_MANY_MATCHES"}``) and the other's seek is open again as it
was, its waiting time kept, for the next pass to pair.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared.eventstore.append_tokens import AppendToken
from shared.eventstore.store_errors import DuplicateAppendError
from shared.observability import metrics
from shared.readmodels.player_feeds import Telling
from shared.rules import MatchState, Rules, Seat, Status

from .abuse_limits import Limiter
from .app import Matches, Recorded, create, latest
from .app.application_errors import (
    ApplicationError,
    NotAPlayerError,
    NotFinishedError,
    SeekOpenError,
    TooManyMatchesError,
)
from .players import Player, PlayerRegistry
from .seek_pool import Pairing, Seek, SeekPool, rematch

RECOVER_AFTER_MS = 5_000  # a pairing older than this has lost its maker
log = logging.getLogger(__name__)


@dataclass
class Matchmaker:
    """What pairing works with: the seek pool, the command side, the players, the limits and the feeds."""

    pool: SeekPool
    matches: Matches
    players: PlayerRegistry
    limits: Limiter
    tell: Callable[[list[Telling]], Any]  # append notices to players' feeds
    rating_of: Callable[[str], float]  # a player's rating now (the seek's place in its pool)
    seek_seconds: int
    clock: Callable[[], int]
    rematch_seconds: int = 60

    def seek(self, player: Player, rated: bool, rules: Rules) -> Seek:
        """Open the player's seek and pair what can be paired now; SeekOpenError if one is open."""
        if self.limits.at_cap(player.id, self.ended_for(player.id)):
            raise TooManyMatchesError(player.id)
        opened = self.pool.open(player.id, rated, rules, self.rating_of(player.id), self.seek_seconds)
        if isinstance(opened, str):
            raise SeekOpenError(opened)
        metrics.record_seek("opened")
        self.pair_now()
        return opened

    def pair_now(self) -> int:
        """One pass over the pools, each pair's match made and each expired seek's player told; how
        many matches were made."""
        done = self.pool.pair()
        if done.expired:
            metrics.record_seek("expired")
            self.tell([_seek_ended(expired.player_id, expired.seek_id, "expired") for expired in done.expired])
        return sum(self.make(pairing) for pairing in done.made)

    def recover(self) -> int:
        """Make the matches of pairings whose maker died; how many."""
        return sum(self.make(pairing) for pairing in self.pool.unfinished(RECOVER_AFTER_MS))

    def make(self, pairing: Pairing) -> bool:
        """Create the pairing's match (once: a remade pairing finds it made) and tell both players;
        if a player cannot sit in it (capped or gone), let the pairing fall through instead."""
        a, b = self.players.by_id(pairing.a["player"]), self.players.by_id(pairing.b["player"])
        if a is None or b is None:  # erased since seeking: the other seeks on
            return self._fell_through(pairing, capped=set())
        made = False
        try:
            if latest(self.matches, pairing.match_id).version == 0:
                options = {"rules": Rules.from_mapping(pairing.rules), **_rated(pairing.rated)}
                with self.limits.pairing((a.id, b.id), pairing.match_id, self.ended_for):
                    create(self.matches, a, options, b, pairing.match_id, token=_making(pairing))
                made = True
        except DuplicateAppendError as used:  # made by another maker meanwhile, or voided by a fall-through
            if used.record.refusal is not None:  # ... whose process may have died before reopening: again
                return self._fell_through(pairing, self._capped((a.id, b.id)))
        except TooManyMatchesError as capped:  # one of them sat down in MAX_PLAYING matches since seeking
            return self._fell_through(pairing, self._capped((a.id, b.id), capped.args[0]))
        except ApplicationError as refused:
            log.info("pairing %s not made: %s", pairing.match_id, refused)
            self.pool.done(pairing)
            return False
        self.pool.done(pairing)
        self._told(pairing)
        now = self.clock()
        metrics.record_pairing(pairing.rated, [(now - side["since"]) / 1000 for side in (pairing.a, pairing.b)])
        return made

    def _capped(self, player_ids: tuple[str, str], refused: str | None = None) -> set[str]:
        """The players of a pairing that falls through who sit in ``MAX_PLAYING`` matches (the one
        refused, if one was, and any other who does too: their seek would only fall through again)."""
        return {p for p in player_ids if p == refused or self.limits.at_cap(p, self.ended_for(p))}

    def _fell_through(self, pairing: Pairing, capped: set[str]) -> bool:
        """The pairing's match will not be made: reopen the seeks of the players who may still sit
        down (their age kept, so the wait is not theirs to pay again) and tell the capped ones why.
        Only the process that forgets the pairing does either, so nobody is told twice."""
        used = self.matches.store.remember_refusal(pairing.match_id, _making(pairing), _VOID)
        if (used is not None and used.refusal is None) or latest(self.matches, pairing.match_id).version != 0:
            self.pool.done(pairing)  # made by another process meanwhile: it stands
            return False
        sides = [self._reopenable(side) for side in (pairing.a, pairing.b)
                 if side["player"] not in capped and self.players.by_id(side["player"]) is not None]
        outcomes = self.pool.reopen(pairing, sides)
        if outcomes is None:
            return False
        log.info("pairing %s fell through: %s capped, seeks %s", pairing.match_id, sorted(capped), outcomes)
        dropped = [_seek_ended(side["player"], side["seek"], "dropped", "TOO_MANY_MATCHES")
                   for side in (pairing.a, pairing.b) if side["player"] in capped]
        expired = [_seek_ended(side["player"], side["seek"], "expired") for side in sides
                   if outcomes[side["seek"]] == "expired"]
        for outcome in outcomes.values():
            metrics.record_seek("reopened" if outcome == "open" else outcome)
        if dropped:
            metrics.record_seek("dropped")
        if dropped or expired:
            self.tell(dropped + expired)
        return False

    def _reopenable(self, side: dict[str, Any]) -> dict[str, Any]:
        """A pairing's side with what reopening its seek needs (a pairing recorded before the pass
        kept them lacks its expiry and rating: the seek's lifetime and the player's rating now)."""
        if "rating" in side and "expires" in side:
            return side
        return {"expires": side["since"] + self.seek_seconds * 1000, "rating": self.rating_of(side["player"]), **side}

    def _told(self, pairing: Pairing) -> None:
        self.tell([Telling(side["player"], "paired", {"match_id": pairing.match_id, "seat": seat.value,
                                                      "seek_id": side["seek"]})
                   for seat, side in ((Seat.A, pairing.a), (Seat.B, pairing.b))])

    def rematch(self, match_id: str, player: Player) -> tuple[str, Recorded | None]:
        """Offer (or accept) a rematch of a finished match: ("offered", None), or ("made", the new
        match) once both asked: the same terms, the same seats, the first dealer swapped."""
        finished = latest(self.matches, match_id).state
        seat = finished.seat_of(player.id)
        if seat is None:
            raise NotAPlayerError(player.id)
        if finished.status is not Status.FINISHED:
            raise NotFinishedError(match_id)
        outcome, new_id = rematch(self.pool.client, match_id, player.id, self.rematch_seconds)
        if outcome == "offered":
            metrics.record_rematch("offered")
            other = finished.players[seat.other.index]
            self.tell([Telling(other.id, "rematch", {"match_id": match_id, "offered_by": player.id})])
            return "offered", None
        return "made", self._rematch_made(finished, new_id, seat, player, made_now=outcome == "make")

    def _rematch_made(self, finished: MatchState, new_id: str, seat: Seat, player: Player, made_now: bool) -> Recorded:
        a = self.players.by_id(finished.players[0].id)
        b = self.players.by_id(finished.players[1].id)
        if made_now and latest(self.matches, new_id).version == 0:
            options = {"rules": finished.rules, "first_dealer": finished.first_dealer.other, **_rated(finished.rated)}
            with self.limits.pairing((a.id, b.id), new_id, self.ended_for):
                create(self.matches, a, options, b, new_id)
            metrics.record_rematch("made")
            self.tell([Telling(p.id, "rematch", {"match_id": new_id, "previous": finished.match_id,
                                                 "seat": s.value}) for s, p in ((Seat.A, a), (Seat.B, b))])
        made = latest(self.matches, new_id)
        return Recorded(new_id, made.version, made.state, [], seat)

    def ended_for(self, player_id: str) -> Callable[[str], bool]:
        """Whether a match the player holds a unit of is over for them (as the create and join endpoints say)."""
        def ended(match_id: str) -> bool:
            state = latest(self.matches, match_id).state
            return state.status.over or (state.status.value == "playing" and state.seat_of(player_id) is None)
        return ended


_VOID = "fell-through"  # the refusal a fallen-through pairing's creation token holds


def _making(pairing: Pairing) -> AppendToken:
    """The append token of the pairing's match's creation: one per pairing, so it is made (or voided) once."""
    return AppendToken(f"pairing:{pairing.match_id}", "create")


def _seek_ended(player_id: str, seek_id: str, status: str, error: str | None = None) -> Telling:
    """The notice of a seek that ended unpaired: ``expired``, or ``dropped`` (``error`` says why)."""
    return Telling(player_id, "seek", {"seek_id": seek_id, "status": status, **({"error": error} if error else {})})


def _rated(rated: bool) -> dict[str, bool]:
    """The creation option of a rated match (an unrated one is created as every match is)."""
    return {"rated": True} if rated else {}
