"""Thousands of matches finished and archived: what Redis keeps growing by, per match, for ever.

Matches are finished (stored, seeded and projected) and archived into a files archive in
rounds of 250 among 50 players, so each player's lists and ledger grow past a hundred
matches, as a regular's do. Redis's ``used_memory`` is read after every round; the figures
are its growth per match over the first and over the last thousand, beside what a whole
match costs before it is archived (the growth of a round before its archiving), and neither
may pass the archive's budget of 300 bytes a match (a size, not a time).
"""
from __future__ import annotations

import statistics
from pathlib import Path

import pytest
import redis

from shared.archive.archiving import Archiver
from shared.archive.files import FileArchive
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match

MATCHES, ROUND, PLAYERS, THOUSAND = 4000, 250, 50, 1000
BUDGET = 300  # bytes of used_memory an archived match may keep for ever
DISTINCT_PLAYTHROUGHS = 200  # random playthroughs, each cached once and reused under other ids


def _used_memory(client: redis.Redis) -> int:
    """Redis's used_memory less the players' notice feeds: those are capped per player (``MAXLEN``,
    trimmed a macro node at a time, so a window of rounds sees them rise or fall by the sawtooth),
    not kept per match."""
    feeds = sum(client.memory_usage(key, samples=0) or 0 for key in client.scan_iter(match="truc:{p:*}:feed"))
    return int(client.info("memory")["used_memory"]) - feeds


def _finish_round(client: redis.Redis, first: int) -> None:
    """Finish matches ``first`` .. ``first + ROUND - 1``, each between two players of the pool."""
    for n in range(first, first + ROUND):
        a, b = n % PLAYERS, (n * 7 + 1 + n // PLAYERS) % PLAYERS
        b = (b + 1) % PLAYERS if b == a else b
        finished_match(client, f"soak{n:07d}", seed=n % DISTINCT_PLAYTHROUGHS,
                       players=((f"sp{a}", f"sp{a}"), (f"sp{b}", f"sp{b}")))


@pytest.mark.soak
@pytest.mark.timeout(1200)
def test_archived_matches_keep_redis_growing_by_a_small_fraction_of_a_match(
    redis_client: redis.Redis, tmp_path: Path, figures: dict,
) -> None:
    archiver = Archiver(redis_client, FileArchive(tmp_path / "archive"), HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS)
    after_rounds, whole_match = [_used_memory(redis_client)], []
    for first in range(0, MATCHES, ROUND):
        _finish_round(redis_client, first)
        whole_match.append((_used_memory(redis_client) - after_rounds[-1]) / ROUND)
        results = [outcome.result for outcome in archiver.archive_due(limit=ROUND + 1)]
        assert results == ["archived"] * ROUND
        after_rounds.append(_used_memory(redis_client))
    per_thousand = THOUSAND // ROUND
    first_growth = (after_rounds[per_thousand] - after_rounds[0]) / THOUSAND
    last_growth = (after_rounds[-1] - after_rounds[-1 - per_thousand]) / THOUSAND
    whole = statistics.median(whole_match)
    figures.update(matches=MATCHES, players=PLAYERS, whole_match_bytes=round(whole),
                   first_thousand_bytes_per_match=round(first_growth), last_thousand_bytes_per_match=round(last_growth),
                   archived_total_bytes=after_rounds[-1] - after_rounds[0])
    print(f"\nused_memory per match (the players' capped feeds left out): whole match before archiving "
          f"{whole:,.0f} B; growth with archiving, first thousand {first_growth:,.0f} B/match, "
          f"last thousand {last_growth:,.0f} B/match")
    assert 0 < last_growth <= BUDGET  # an archived match's residue, the keyspace's own table included
    assert first_growth <= BUDGET
