"""``truc unpark MATCH``: retries a parked match, and says whether it is still parked."""

from __future__ import annotations

import fakeredis
import pytest
from click.testing import CliRunner

from services.cli import truc
from services.cli import unpark as unpark_module
from services.projector.catchup.projector_context import ProjectorContext
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.parked import ParkedMatch, ParkedMatches, Poison
from tests.projector_support import store_matches


@pytest.fixture
def context(fake_redis: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch) -> ProjectorContext:
    context = ProjectorContext(RedisEventStore(fake_redis), ReadModels(fake_redis))
    monkeypatch.setattr(unpark_module.ProjectorContext, "from_config", classmethod(lambda cls, config: context))
    return context


def test_a_match_that_folds_now_is_caught_up_and_forgotten(context: ProjectorContext) -> None:
    (match_id,) = store_matches(context.store, 1)
    ParkedMatches(context.readmodels.client).park(match_id, Poison(3, "KeyError: 'new_event'"), 3)
    result = CliRunner().invoke(truc, ["unpark", match_id])
    assert result.exit_code == 0, result.output
    assert f"Match {match_id} is caught up." in result.output
    assert context.readmodels.projected_version(match_id) == context.store.version(match_id)
    assert ParkedMatches(context.readmodels.client).get(match_id) is None


def test_a_match_still_parked_exits_1_with_its_poison(
    context: ProjectorContext, monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = ParkedMatch("m1", 7, "ValueError: no such card", 9, "2025-01-01T00:00:00Z")
    monkeypatch.setattr(unpark_module, "retry", lambda match_id, ctx: record)
    result = CliRunner().invoke(truc, ["unpark", "m1"])
    assert result.exit_code == 1
    assert "still parked at event 7: ValueError: no such card" in result.output


def test_a_bad_match_id_is_a_usage_error(context: ProjectorContext) -> None:
    assert CliRunner().invoke(truc, ["unpark", "not a match"]).exit_code == 2
