"""The command side's use cases on the in-memory store: retries, If-Match, idempotency."""
import pytest

from services.api.errors import ApiError
from services.api.game import MatchService
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
    return MatchService(store, notified.append, seeds)


def started(service):
    created = service.create(ALICE, {"rules": Rules(), "first_dealer": None})
    return service.join(created.match_id, BOB)


def on_turn(recorded):
    return ALICE if recorded.state.round.turn.value == "A" else BOB


def test_create_and_join_record_events_and_notify_the_projector(service, store, notified):
    joined = started(service)
    assert [e.type for e in joined.events] == ["player_joined", "round_dealt"]
    assert store.version(joined.match_id) == joined.version == 3
    assert notified == [joined.match_id] * 2


def test_a_second_service_instance_sees_the_first_ones_appends(service, store, seeds):
    joined = started(service)
    other = MatchService(store, lambda _: None, seeds)
    acted = other.act(joined.match_id, on_turn(joined), {"type": "raise"})
    assert service.load(joined.match_id)[0] == acted.version == 4


def test_a_stale_if_match_is_a_version_conflict(service, store):
    joined = started(service)
    with pytest.raises(ApiError) as error:
        service.act(joined.match_id, on_turn(joined), {"type": "raise"}, if_match=joined.version - 1)
    assert error.value.status == 412 and store.version(joined.match_id) == joined.version


def test_without_if_match_a_concurrent_append_is_retried(service, store, seeds):
    joined = started(service)
    racer = MatchService(store, lambda _: None, seeds)
    service.load(joined.match_id)  # cached at version 3
    racer.act(joined.match_id, on_turn(joined), {"type": "propose_redeal"})  # the stream moves to 4
    answer = BOB if on_turn(joined) is ALICE else ALICE
    assert service.act(joined.match_id, answer, {"type": "reject"}).version == 5


def test_an_idempotent_retry_returns_the_first_events_and_records_nothing(service, store):
    joined = started(service)
    first = service.act(joined.match_id, on_turn(joined), {"type": "raise"}, idempotency_key="k1")
    again = service.act(joined.match_id, on_turn(joined), {"type": "raise"}, idempotency_key="k1")
    assert again.events == first.events and store.version(joined.match_id) == first.version
    with pytest.raises(ApiError) as error:
        service.act(joined.match_id, on_turn(joined), {"type": "fold"}, idempotency_key="k1")
    assert error.value.code == "IDEMPOTENCY_KEY_REUSED"


def test_refusals_record_nothing(service, store):
    joined = started(service)
    with pytest.raises(RuleError) as refused:
        service.act(joined.match_id, on_turn(joined), {"type": "accept"})
    assert refused.value.code is RuleCode.NOTHING_TO_ANSWER
    with pytest.raises(ApiError) as stranger:
        service.act(joined.match_id, CAROL, {"type": "fold"})
    assert stranger.value.code == "NOT_A_PLAYER"
    with pytest.raises(ApiError) as missing:
        service.act("no-such-match", ALICE, {"type": "fold"})
    assert missing.value.status == 404
    assert store.version(joined.match_id) == joined.version


def test_an_idempotent_retry_of_a_refused_request_is_refused_again(service, store):
    joined = started(service)
    waiting = BOB if on_turn(joined) is ALICE else ALICE
    with pytest.raises(RuleError) as first:
        service.act(joined.match_id, waiting, {"type": "raise"}, idempotency_key="k")
    service.act(joined.match_id, on_turn(joined), {"type": "play", "card": joined.state.round.hand(
        joined.state.round.turn)[0]})
    version = store.version(joined.match_id)
    with pytest.raises(RuleError) as again:
        service.act(joined.match_id, waiting, {"type": "raise"}, idempotency_key="k")  # now on turn
    assert again.value.code is first.value.code is RuleCode.NOT_YOUR_TURN
    assert store.version(joined.match_id) == version


def test_an_if_match_equal_to_a_stale_cached_version_is_a_conflict_at_the_streams_version(service, store, seeds):
    joined = started(service)
    racer = MatchService(store, lambda _: None, seeds)
    racer.act(joined.match_id, on_turn(joined), {"type": "propose_redeal"})  # the stream moves to 4
    with pytest.raises(ApiError) as error:
        service.act(joined.match_id, on_turn(joined), {"type": "raise"}, if_match=joined.version)
    assert error.value.status == 412 and error.value.detail["version"] == joined.version + 1


def test_an_if_match_ahead_of_the_cache_reads_the_stream_and_acts(service, store, seeds):
    joined = started(service)
    racer = MatchService(store, lambda _: None, seeds)
    racer.act(joined.match_id, on_turn(joined), {"type": "propose_redeal"})
    answer = BOB if on_turn(joined) is ALICE else ALICE
    assert service.act(joined.match_id, answer, {"type": "accept"}, if_match=joined.version + 1).version == 5


def test_ids_never_start_with_a_dash_so_command_lines_read_them_as_ids():
    from shared.ids import new_id

    assert not any(new_id().startswith("-") for _ in range(2000))
