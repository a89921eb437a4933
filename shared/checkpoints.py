"""A match at any version for about one round's fold: checkpoints of the one fold, kept per match.

``/replay?version=N`` used to fold a match from version 0 on every request: with matches
of ten thousand events, a cheap request cost a quarter of a second of the process. Here
the fold of each match replayed is kept every ``CHECKPOINT_EVERY`` versions (the
:class:`~shared.fold.FoldedMatch` right after event 64, 128, ...), and a replay at N
folds on from the nearest checkpoint at or before N: at most 63 events, a couple of
rounds, whatever the match's length. The first replay of a match past its checkpoints
folds on from the last one, page by page (``PAGE_SIZE``), keeping the checkpoints it
passes, with its long pages off the event loop (:func:`shared.fold.fold_page`).

Why every 64 versions and not at each ``round_dealt``: the cost of a replay is then
bounded by events, not by how long a round runs (redeals, raises, timeouts), and a match
of four-event rounds keeps a checkpoint per 16 rounds instead of one per round.

Why in the process and not in Redis: a checkpoint is a rules state, which has no stored
form (the codec writes events, and only events are kept); one would have to be designed,
versioned with every change of the state and read back and decoded on each replay, a
round trip and a decode of about the cost of the 63 events it saves. In the process it
costs nothing to read, and each API process folds a match once to make its checkpoints.

They never go stale: a stream only grows, so the fold at version N is the same for ever,
for a live match as for a finished one. The process keeps ``CHECKPOINTS_KEPT`` in all
(the matches replayed least recently are forgotten first), and nothing for a match too
short to have one, or one that does not exist.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from shared.eventstore.port import EventStore, StoredEvent
from shared.fold import FoldedMatch, fold, fold_page, pages_up_to

CHECKPOINT_EVERY = 64  # versions between two checkpoints of a match: what a replay folds at most, less one
CHECKPOINTS_KEPT = 4_096  # per process, all matches together: ~4.4 KB each, some 18 MB (26 longest matches)


class Checkpoints:
    """Checkpoints of recently replayed matches (LRU by match, bounded in all, thread-safe)."""

    def __init__(self, every: int = CHECKPOINT_EVERY, kept: int = CHECKPOINTS_KEPT) -> None:
        self.every, self._kept = every, kept
        self._matches: OrderedDict[str, tuple[FoldedMatch, ...]] = OrderedDict()
        self._count = 0  # checkpoints kept, all matches together
        self._lock = threading.Lock()

    def at(self, store: EventStore, match_id: str, version: int) -> FoldedMatch:
        """The match as it stood right after event ``version`` (at most its last, if the stream is shorter)."""
        known = self.known(match_id)
        start = known[min(version // self.every, len(known) - 1)]
        folded, passed = fold_to(store, start, version, self.every)
        if passed:  # only from the last checkpoint kept: these continue it
            self._keep(match_id, known + tuple(passed))
        return folded

    def known(self, match_id: str) -> tuple[FoldedMatch, ...]:
        """The match's checkpoints: the first is the match before its first event, version 0."""
        with self._lock:
            known = self._matches.get(match_id)
            if known is None:
                return (FoldedMatch(match_id),)
            self._matches.move_to_end(match_id)
            return known

    def _keep(self, match_id: str, known: tuple[FoldedMatch, ...]) -> None:
        with self._lock:
            kept = self._matches.get(match_id, ())
            if len(kept) >= len(known):
                return  # a concurrent replay went as far: the checkpoints at each version are the same
            self._matches[match_id] = known
            self._matches.move_to_end(match_id)
            self._count += len(known) - len(kept)
            while self._count > self._kept and len(self._matches) > 1:
                self._count -= len(self._matches.popitem(last=False)[1])

    def __len__(self) -> int:
        """How many checkpoints are kept, all matches together."""
        return self._count


def fold_to(
    store: EventStore, start: FoldedMatch, version: int, every: int,
) -> tuple[FoldedMatch, list[FoldedMatch]]:
    """Fold from ``start`` up to ``version``, page by page; and the checkpoints passed on the way."""
    folded, passed = start, []
    for page in pages_up_to(store, start.match_id, start.version, version):
        folded, marks = fold_page(folded, page, lambda at, events: fold_marking(at, events, every))
        passed += marks
    return folded, passed


def fold_marking(
    folded: FoldedMatch, stored: Sequence[StoredEvent], every: int,
) -> tuple[FoldedMatch, list[FoldedMatch]]:
    """``fold(folded, stored)``, and the fold at each multiple of ``every`` it passes."""
    marks = []
    while stored:
        step = every - folded.version % every  # events to the next multiple
        folded, stored = fold(folded, stored[:step]), stored[step:]
        if folded.version % every == 0:
            marks.append(folded)
    return folded, marks
