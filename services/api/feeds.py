"""What the viewers of one match, or of one player's notices, share in a process (see :mod:`.fanout`).

A :class:`MatchFeed` holds the match as last folded and its messages of that version, one
per audience (seat A, seat B, a spectator): a change is read from the store once and
rendered at most three times, however many watch. A :class:`PlayerFeed` holds the notices
read from the player's feed since the earliest position one of its viewers asked for.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson

from shared import keys
from shared.fold import FoldedMatch
from shared.readmodels.player_feeds import MAXLEN, Notice
from shared.readmodels.port import FeedReader
from shared.readmodels.projection import match_view, seated_ids
from shared.rules import Seat
from shared.subscriber import Subscriber

from .fanout import Hub, Topic

Directory = Callable[[Sequence[str]], dict[str, str]]  # player ids -> their names (the player directory)


class MatchFeed(Topic):
    """One match as its viewers in this process see it."""

    def __init__(self, match_id: str, load: Callable[[str], FoldedMatch], names: Directory = lambda ids: {}) -> None:
        super().__init__()
        self.match_id = match_id
        self._load = load  # the match folded to the end of its stream (the process's fold cache)
        self._names = names
        self._folded: FoldedMatch | None = None
        self._messages: dict[Seat | None, bytes] = {}

    def current(self) -> FoldedMatch:
        """The match, read again only if something was appended since the last read (by any viewer)."""
        with self.lock:
            if self.stale or self._folded is None:
                folded = self._load(self.match_id)
                if self._folded is None or folded.version > self._folded.version:
                    self._folded, self._messages = folded, {}
                self.fresh()
            return self._folded

    def known(self) -> FoldedMatch | None:
        """The match as last read, if nothing was appended since (as far as the subscriber has heard)."""
        with self.lock:
            return None if self.stale else self._folded

    def message(self, folded: FoldedMatch, seat: Seat | None) -> bytes:
        """The ``event: view`` message of ``folded`` for ``seat`` (None: a spectator), rendered once per version."""
        with self.lock:
            rendered = self._messages.get(seat) if folded is self._folded else None
            if rendered is None:
                rendered = view_message(folded, seat, self._names(seated_ids(folded.state)))
                if folded is self._folded:
                    self._messages[seat] = rendered
            return rendered


def view_message(folded: FoldedMatch, seat: Seat | None, names: dict[str, str] | None = None) -> bytes:
    """One ``event: view`` message: the view as JSON on one line (SSE data may not hold newlines)."""
    data = orjson.dumps(match_view(folded.match_id, folded.version, folded.state, seat, names))
    return b"event: view\nid: %d\ndata: %s\n\n" % (folded.version, data)


class PlayerFeed(Topic):
    """One player's notices as their streams in this process read them."""

    def __init__(self, player_id: str, feeds: FeedReader) -> None:
        super().__init__()
        self.player_id = player_id
        self._feeds = feeds
        self._since: str | None = None  # every notice after this position is in _notices
        self._notices: list[Notice] = []

    def after(self, position: str) -> list[Notice]:
        """The notices after ``position``, read from Redis only when none of this process's viewers has."""
        with self.lock:
            if self._since is None or _order(position) < _order(self._since):
                self._since, self._notices = position, self._feeds.after(self.player_id, position)
                self.fresh()
            elif self.stale:
                last = self._notices[-1].id if self._notices else self._since
                self._notices += self._feeds.after(self.player_id, last)
                self.fresh()
            if len(self._notices) > MAXLEN:
                self._since, self._notices = self._notices[-MAXLEN - 1].id, self._notices[-MAXLEN:]
            return [notice for notice in self._notices if _order(notice.id) > _order(position)]


@dataclass
class LiveFeeds:
    """The process's match and player feeds, woken by its one subscriber."""

    matches: Hub[MatchFeed]
    players: Hub[PlayerFeed]


def live_feeds(subscriber: Subscriber, feeds: FeedReader, load: Callable[[str], FoldedMatch],
               names: Directory = lambda ids: {}) -> LiveFeeds:
    """The feeds of one API process, woken by its one ``subscriber``: the players' read from
    ``feeds``, the matches' folded by ``load`` (the match folded to its end), named by ``names``."""
    matches = Hub(lambda match_id: MatchFeed(match_id, load, names), subscriber.start)
    players = Hub(lambda player_id: PlayerFeed(player_id, feeds), subscriber.start)
    subscriber.on(keys.MATCHES_APPENDED, matches.wake, lambda: bool(matches.watched))
    subscriber.on(keys.PLAYERS_TOLD, players.wake, lambda: bool(players.watched))
    return LiveFeeds(matches, players)


def _order(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)
