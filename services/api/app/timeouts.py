"""The service's clock: a turn's timeout (R29-R30) and a waiting match's expiry (R32).

A timer process calls these once a deadline it computed has passed (``shared.rules``:
``owes`` and ``deadline`` of a folded match, ``lobby_deadline`` of a waiting one). They
are decided by the rules like any action, on the stream as it is, and recorded at the
version they were decided on: a move (or a join) that lands first makes the append fail,
and the command is decided again on the match as it now stands, where it is refused
(``NOT_DUE``, ``MATCH_STARTED``, ``MATCH_OVER``) and nothing is recorded. So a timer
may be early, late, repeated or run twice at once: only a timeout that is due is recorded,
once.
"""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import ExpireLobby, Seat, TimeOut, owes, step

from .matches import Matches
from .recording import Recorded, record, retrying


def time_out(matches: Matches, match_id: str, now_ms: int, seat: Seat | None = None) -> Recorded:
    """Record the timeout of the seat that owes the match's decision, due at ``now_ms`` (epoch ms).

    ``seat``: time out only that seat (the one the timer saw owing). Raises RuleError
    ``NOT_DUE`` if the deadline has not passed or that seat owes nothing (a move landed
    first), ``MATCH_OVER`` / ``NOT_STARTED`` as for any action; MatchNotFoundError.
    """

    def attempt(match: FoldedMatch, fresh: bool) -> Recorded:
        # Nobody owes only while the match is not playing: the rules refuse either seat alike.
        command = TimeOut(seat or owes(match.state) or Seat.A, now_ms)
        stepped = step(match.state, command, matches.chances.of(match_id))  # a fold deals the next round
        return record(matches, match, stepped, None)

    return retrying(matches, match_id, attempt)


def expire(matches: Matches, match_id: str, now_ms: int, lobby_seconds: int) -> Recorded:
    """Cancel a match nobody joined within ``lobby_seconds`` of its creation, as of ``now_ms``.

    Raises RuleError ``NOT_DUE`` before then, ``MATCH_STARTED`` once someone joined,
    ``MATCH_OVER`` once cancelled or over; MatchNotFoundError.
    """

    def attempt(match: FoldedMatch, fresh: bool) -> Recorded:
        return record(matches, match, step(match.state, ExpireLobby(now_ms, lobby_seconds)), None)

    return retrying(matches, match_id, attempt)
