"""A match aborted (resigned or abandoned before round 1 is complete) or played on custom terms
(a clock under 15 s, a target under 6) adds nothing to the scoreboard: the projector, a rebuild
and a fresh fold agree, for matches recorded before those rules as after."""

from __future__ import annotations

import random

from services.projector.catchup.catching_up import catch_up, fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.rebuild.match_rebuilds import rebuild_match
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.rules import CreateMatch, JoinMatch, MatchState, Resign, Rules, Seat, decide, replay
from shared.rules.events import Event
from shared.rules.playthrough import play_random_match
from tests.projector_support import random_match


def _store(store: RedisEventStore, match_id: str, events: list[Event]) -> None:
    store.append(match_id, [encode(e) for e in events], 0)


def puppet_resigns_at_once(match_id: str) -> list[Event]:
    """The farm: the puppet creates, the main account joins, the puppet resigns at its first chance."""
    rng = random.Random(7)
    events = decide(MatchState(), CreateMatch(match_id, "p-puppet", Rules(), Seat.B), rng)
    events += decide(replay(events), JoinMatch("p1"), rng)
    return events + decide(replay(events), Resign(Seat.A), rng)


def test_a_puppets_resignation_at_its_first_event_leaves_the_scoreboard_unchanged(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    _store(store, "m-ranked", random_match(3, "m-ranked"))
    catch_up("m-ranked", context)
    before = readmodels.scoreboard()
    assert before["version"] == 1

    for n in range(3):
        _store(store, f"m-farm{n}", puppet_resigns_at_once(f"m-farm{n}"))
        catch_up(f"m-farm{n}", context)

    assert readmodels.scoreboard() == before
    assert readmodels.player_row("p-puppet") is None
    view = readmodels.view("m-farm0", "spectator")
    assert view["status"] == "finished" and view["ended_by"] == "aborted" and view["winner"] == "B"
    assert fresh_views(store, "m-farm0").results == ()


def test_a_finished_match_on_a_five_second_clock_recorded_as_not_custom_is_never_ranked(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    _, events = play_random_match(random.Random(5), Rules(turn_seconds=5))
    assert events[0].custom is False  # as recorded before short clocks were custom terms
    _store(store, "m-quick", events)

    catch_up("m-quick", context)
    rebuild_match("m-quick", context)

    view = readmodels.view("m-quick", "A")
    assert view["status"] == "finished" and view["custom"] is True
    assert readmodels.summary("m-quick")["custom"] is True
    assert readmodels.scoreboard() == {"players": [], "version": 0}


def test_a_small_target_is_never_ranked_but_an_ordinary_match_is(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    _, small = play_random_match(random.Random(6), Rules(target=5))
    _store(store, "m-small", small)
    _store(store, "m-ranked", random_match(4, "m-ranked"))
    for match_id in ("m-small", "m-ranked"):
        catch_up(match_id, context)
    board = readmodels.scoreboard()
    assert board["version"] == 1 and {row["id"] for row in board["players"]} == {"p1", "p2"}
