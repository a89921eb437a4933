"""A match recorded with a target of 1000 (before R33 held new matches to 100) still decodes,
folds, replays, audits and survives export and import, against a real redis-server."""
import random

from click.testing import CliRunner

from services.api.app import Matches, act, create, join, latest
from services.cli import truc
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.rebuild.match_rebuilds import rebuild_match
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.rules import Rules, legal_actions
from shared.rules.playthrough import random_action
from shared.seeds import SeedVault
from tests.match_support import ALICE, BOB

AUDIENCES = ("A", "B", "spectator")


def _recorded_long_target(service: Matches) -> str:
    """A match created with target 1000, played a few rounds, then resigned after round 1."""
    match_id = create(service, ALICE, {"rules": Rules.from_mapping({"target": 1000}), "first_dealer": None}).match_id
    join(service, match_id, BOB)
    players, rng = {"A": ALICE, "B": BOB}, random.Random(4)
    while latest(service, match_id).state.rounds_dealt < 4:
        # No remainder or fold: an accepted remainder wins the match (the deals come from a fresh seed).
        action = random_action(latest(service, match_id).state, rng, rare_weight=0)
        assert action in legal_actions(latest(service, match_id).state, action.seat)
        act(service, match_id, players[action.seat.value], action.body())
    act(service, match_id, ALICE, {"type": "resign"})
    return match_id


def test_a_recorded_target_of_1000_replays_audits_and_imports(redis_server, redis_client, tmp_path) -> None:
    env = {"REDIS_URL": redis_server.url}
    match_id = _recorded_long_target(Matches(RedisEventStore(redis_client), lambda _: None, SeedVault(redis_client)))
    rebuild_match(match_id, ProjectorContext(RedisEventStore(redis_client), ReadModels(redis_client)))
    models = ReadModels(redis_client)
    before = {audience: models.view(match_id, audience) for audience in AUDIENCES}
    assert before["spectator"]["rules"]["target"] == 1000 and before["spectator"]["ended_by"] == "resigned"

    run = lambda *args: CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)  # noqa: E731
    audited = run("audit", match_id)
    assert audited.exit_code == 0 and "1 passed, 0 failed" in audited.output, audited.output
    replayed = run("replay", match_id)
    assert replayed.exit_code == 0 and "Match won by B" in replayed.output, replayed.output
    exported = tmp_path / "long-target.jsonl"
    assert run("export", match_id, "-o", str(exported)).exit_code == 0
    redis_client.flushall()

    imported = run("import", str(exported))

    assert imported.exit_code == 0, imported.output
    assert run("audit", match_id).exit_code == 0
    assert {audience: models.view(match_id, audience) for audience in AUDIENCES} == before
