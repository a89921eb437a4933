"""The command side's use cases on the in-memory store: retries, If-Match, idempotency."""
import pytest

from services.api.app import Matches, act, create, join, latest
from services.api.app.application_errors import (
    KeyReusedError,
    MatchNotFoundError,
    NotAPlayerError,
    VersionConflictError,
)
from services.api.players import Player
from shared.eventstore import InMemoryEventStore
from shared.rules import RuleCode, RuleError, Rules
from shared.seeds import InMemorySeeds

ALICE, BOB, CAROL = Player("alice-id", "alice"), Player("bob-id", "bob"), Player("carol-id", "carol")


@pytest.fixture
def store():
    return InMemoryEventStore()


@pytest.fixture
def notified():
    return []


@pytest.fixture
def seeds():
    return InMemorySeeds()


@pytest.fixture
def service(store, notified, seeds):
    return Matches(store, notified.append, seeds)


def started(service):
    created = create(service, ALICE, {"rules": Rules(), "first_dealer": None})
    return join(service, created.match_id, BOB)


def on_turn(recorded):
    return ALICE if recorded.state.round.turn.value == "A" else BOB


def test_create_and_join_record_events_and_notify_the_projector(service, store, notified):
    joined = started(service)
    assert [e.type for e in joined.events] == ["player_joined", "round_dealt"]
    assert store.version(joined.match_id) == joined.version == 3
    assert notified == [joined.match_id] * 2


def test_a_second_service_instance_sees_the_first_ones_appends(service, store, seeds):
    joined = started(service)
    other = Matches(store, lambda _: None, seeds)
    acted = act(other, joined.match_id, on_turn(joined), {"type": "raise"})
    assert latest(service, joined.match_id).version == acted.version == 4


def test_a_stale_if_match_is_a_version_conflict(service, store):
    joined = started(service)
    with pytest.raises(VersionConflictError) as error:
        act(service, joined.match_id, on_turn(joined), {"type": "raise"}, if_match=joined.version - 1)
    assert error.value.actual == joined.version and store.version(joined.match_id) == joined.version


def test_without_if_match_a_concurrent_append_is_retried(service, store, seeds):
    joined = started(service)
    racer = Matches(store, lambda _: None, seeds)
    latest(service, joined.match_id)  # cached at version 3
    act(racer, joined.match_id, on_turn(joined), {"type": "propose_redeal"})  # the stream moves to 4
    answer = BOB if on_turn(joined) is ALICE else ALICE
    assert act(service, joined.match_id, answer, {"type": "reject"}).version == 5


def test_an_idempotent_retry_returns_the_first_events_and_records_nothing(service, store):
    joined = started(service)
    first = act(service, joined.match_id, on_turn(joined), {"type": "raise"}, idempotency_key="k1")
    again = act(service, joined.match_id, on_turn(joined), {"type": "raise"}, idempotency_key="k1")
    assert again.events == first.events and store.version(joined.match_id) == first.version
    with pytest.raises(KeyReusedError):
        act(service, joined.match_id, on_turn(joined), {"type": "fold"}, idempotency_key="k1")


def test_refusals_record_nothing(service, store):
    joined = started(service)
    with pytest.raises(RuleError) as refused:
        act(service, joined.match_id, on_turn(joined), {"type": "accept"})
    assert refused.value.code is RuleCode.NOTHING_TO_ANSWER
    with pytest.raises(NotAPlayerError):
        act(service, joined.match_id, CAROL, {"type": "fold"})
    with pytest.raises(MatchNotFoundError):
        act(service, "no-such-match", ALICE, {"type": "fold"})
    assert store.version(joined.match_id) == joined.version


def test_an_idempotent_retry_of_a_refused_request_is_refused_again(service, store):
    joined = started(service)
    waiting = BOB if on_turn(joined) is ALICE else ALICE
    with pytest.raises(RuleError) as first:
        act(service, joined.match_id, waiting, {"type": "raise"}, idempotency_key="k")
    act(service, joined.match_id, on_turn(joined), {"type": "play", "card": joined.state.round.hand(
        joined.state.round.turn)[0]})
    version = store.version(joined.match_id)
    with pytest.raises(RuleError) as again:
        act(service, joined.match_id, waiting, {"type": "raise"}, idempotency_key="k")  # now on turn
    assert again.value.code is first.value.code is RuleCode.NOT_YOUR_TURN
    assert store.version(joined.match_id) == version


def test_an_if_match_equal_to_a_stale_cached_version_is_a_conflict_at_the_streams_version(service, store, seeds):
    joined = started(service)
    racer = Matches(store, lambda _: None, seeds)
    act(racer, joined.match_id, on_turn(joined), {"type": "propose_redeal"})  # the stream moves to 4
    with pytest.raises(VersionConflictError) as error:
        act(service, joined.match_id, on_turn(joined), {"type": "raise"}, if_match=joined.version)
    assert error.value.actual == joined.version + 1


def test_an_if_match_ahead_of_the_cache_reads_the_stream_and_acts(service, store, seeds):
    joined = started(service)
    racer = Matches(store, lambda _: None, seeds)
    act(racer, joined.match_id, on_turn(joined), {"type": "propose_redeal"})
    answer = BOB if on_turn(joined) is ALICE else ALICE
    assert act(service, joined.match_id, answer, {"type": "accept"}, if_match=joined.version + 1).version == 5


def test_ids_never_start_with_a_dash_so_command_lines_read_them_as_ids():
    from shared.ids import new_id

    assert not any(new_id().startswith("-") for _ in range(2000))
