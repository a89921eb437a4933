"""The subscriber tells a part when it stops hearing its channel: unsubscribed, or its connection killed.

A part whose state the messages keep true (the API's token cache) must not trust it meanwhile.
"""
from __future__ import annotations

from shared.subscriber import Subscriber
from tests.waiting import wait_until


def test_a_part_is_told_when_its_channel_is_unsubscribed_and_when_its_connection_dies(redis_client) -> None:
    subscriber = Subscriber(redis_client, "test-lost")
    wanted, heard, lost = [True], [], []
    subscriber.on("test:lost", heard.append, lambda: wanted[0], lambda: lost.append(True))
    subscriber.start()
    wait_until(lambda: heard == [None], timeout=5, what="the subscription")
    [connection] = [client for client in redis_client.client_list() if client["name"] == "test-lost"]
    redis_client.client_kill_filter(_id=connection["id"])
    wait_until(lambda: lost, timeout=10, what="the loss to be told")
    wait_until(lambda: heard == [None, None], timeout=10, what="the subscription again")  # reconnected
    assert redis_client.publish("test:lost", "m") == 1
    wait_until(lambda: heard[-1] == "m", timeout=5)
    told = len(lost)
    wanted[0] = False
    wait_until(lambda: len(lost) > told, timeout=10, what="the unsubscription to be told")
    wait_until(lambda: subscriber._thread is None, timeout=5)
