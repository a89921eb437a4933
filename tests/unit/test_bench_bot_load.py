"""bench/bot_load.py reads the bot's decision times off a match's events: each of its commands
timed from the event before it, a move the clock made for it counted as a miss, not timed."""
from __future__ import annotations

from bench.bot_load import bot_decisions


def _event(version: int, kind: str, at_ms: int, seat: str | None = None) -> dict:
    return {"version": version, "type": kind, "at": f"2026-01-01T00:00:{at_ms // 1000:02d}.{at_ms % 1000:03d}Z",
            "data": {} if seat is None else {"seat": seat}}


def test_each_command_of_the_bot_is_timed_from_the_event_before_it_and_a_timeout_is_a_miss():
    events = [
        _event(1, "match_created", 0), _event(2, "player_joined", 0, "B"), _event(3, "round_dealt", 0),
        _event(4, "card_played", 250, "B"),  # the bot leads: 250 ms after the deal
        _event(5, "card_played", 400, "A"), _event(6, "trick_won", 400, "A"),
        _event(7, "raise_proposed", 500, "A"),
        _event(8, "raise_accepted", 1700, "B"),  # 1.2 s to answer
        _event(9, "card_played", 1800, "A"), _event(10, "trick_won", 1800, "B"),
        _event(11, "card_played", 1900, "B"),  # it won the trick and leads again: 100 ms
        _event(12, "card_played", 2000, "A"),
        _event(13, "turn_timed_out", 9000, "B"), _event(14, "card_played", 9000, "B"),  # the clock's move
    ]
    latencies, missed = bot_decisions(events)
    assert [round(ms) for ms in latencies] == [250, 1200, 100] and missed == 1


def test_a_match_the_bot_never_moved_in_has_no_decisions():
    assert bot_decisions([_event(1, "match_created", 0), _event(2, "card_played", 10, "A")]) == ([], 0)
