"""The process's one subscriber, on a real Redis: it subscribes only what some part wants, at once."""
from __future__ import annotations

from shared.subscriber import Subscriber
from tests.waiting import wait_until


def _heard(redis_client, parts: dict[str, list[bool]]) -> tuple[Subscriber, dict[str, list[str | None]]]:
    subscriber = Subscriber(redis_client, "test-subscriber")
    heard: dict[str, list[str | None]] = {channel: [] for channel in parts}
    for channel, wanted in parts.items():
        subscriber.on(channel, heard[channel].append, lambda wanted=wanted: wanted[0])
    return subscriber, heard


def test_only_the_channels_wanted_are_heard_and_a_new_waiter_subscribes_its_own_at_once(redis_client) -> None:
    wanted_a, wanted_b = [True], [False]
    subscriber, heard = _heard(redis_client, {"test:a": wanted_a, "test:b": wanted_b})
    subscriber.start()
    wait_until(lambda: heard["test:a"] == [None], timeout=5)  # subscribed: its part looks again
    redis_client.publish("test:a", "m1")
    assert redis_client.publish("test:b", "x") == 0  # nobody wants it: not subscribed
    wait_until(lambda: heard["test:a"] == [None, "m1"], timeout=5)
    wanted_b[0] = True
    subscriber.start()  # the thread runs: the channel is asked for now, not at its next poll
    assert "test:b" in subscriber._line.subscribed
    # Redis reads the SUBSCRIBE and this PUBLISH from two connections, in either order: a publish
    # that comes first reaches no one, and the part's confirmation (None) makes it look again.
    wait_until(lambda: redis_client.publish("test:b", "y") == 1, timeout=5)
    wait_until(lambda: heard["test:b"] == [None, "y"], timeout=5)
    wanted_b[0] = False
    wait_until(lambda: redis_client.publish("test:b", "z") == 0, timeout=5)  # unsubscribed at the next poll
    wanted_a[0] = False
    wait_until(lambda: subscriber._thread is None, timeout=5)  # nobody wants it: it stands down
    wait_until(lambda: not [c for c in redis_client.client_list() if c["name"] == "test-subscriber"], timeout=5)


def test_many_messages_each_reach_their_part_in_order(redis_client) -> None:
    subscriber, heard = _heard(redis_client, {"test:c": [True]})
    subscriber.start()
    wait_until(lambda: heard["test:c"] == [None], timeout=5)
    sent = [f"m{n}" for n in range(200)]
    for message in sent:
        redis_client.publish("test:c", message)
    wait_until(lambda: len(heard["test:c"]) == 201, timeout=5)
    assert heard["test:c"][1:] == sent
