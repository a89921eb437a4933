"""The process's one subscriber, on a real Redis: it subscribes only what some part wants, at once."""
from __future__ import annotations

import threading
import time

from shared.subscriber import Subscriber


def _heard(redis_client, parts: dict[str, list[bool]]) -> tuple[Subscriber, dict[str, list[str | None]]]:
    subscriber = Subscriber(redis_client, "test-subscriber")
    heard: dict[str, list[str | None]] = {channel: [] for channel in parts}
    for channel, wanted in parts.items():
        subscriber.on(channel, heard[channel].append, lambda wanted=wanted: wanted[0])
    return subscriber, heard


def _until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_only_the_channels_wanted_are_heard_and_a_new_waiter_subscribes_its_own_at_once(redis_client) -> None:
    wanted_a, wanted_b = [True], [False]
    subscriber, heard = _heard(redis_client, {"test:a": wanted_a, "test:b": wanted_b})
    subscriber.start()
    assert _until(lambda: heard["test:a"] == [None])  # subscribed: its part looks again
    redis_client.publish("test:a", "m1")
    assert redis_client.publish("test:b", "x") == 0  # nobody wants it: not subscribed
    assert _until(lambda: heard["test:a"] == [None, "m1"])
    wanted_b[0] = True
    subscriber.start()  # the thread runs: the channel is subscribed now, not at its next poll
    assert redis_client.publish("test:b", "y") == 1
    assert _until(lambda: heard["test:b"] == [None, "y"])
    wanted_b[0] = False
    assert _until(lambda: redis_client.publish("test:b", "z") == 0)  # unsubscribed at the next poll
    wanted_a[0] = False
    assert _until(lambda: subscriber._thread is None)  # nobody wants it: it stands down
    assert _until(lambda: not [c for c in redis_client.client_list() if c["name"] == "test-subscriber"])


def test_many_messages_each_reach_their_part_in_order(redis_client) -> None:
    subscriber, heard = _heard(redis_client, {"test:c": [True]})
    subscriber.start()
    assert _until(lambda: heard["test:c"] == [None])
    sent = [f"m{n}" for n in range(200)]
    publisher = threading.Thread(target=lambda: [redis_client.publish("test:c", m) for m in sent])
    publisher.start()
    publisher.join()
    assert _until(lambda: len(heard["test:c"]) == 201)
    assert heard["test:c"][1:] == sent
