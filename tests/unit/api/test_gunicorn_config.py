"""The API's gunicorn worker: gevent's, with client sockets that time out once stalled."""
from __future__ import annotations

import socket
from typing import Any

import pytest
from gunicorn.workers.base_async import AsyncWorker

from services.api import gunicorn_config
from shared.config import Config


def test_a_client_socket_gets_the_stall_bound_and_the_send_buffer_before_it_is_served(monkeypatch) -> None:
    served: list[Any] = []
    monkeypatch.setattr(AsyncWorker, "handle", lambda self, listener, client, addr: served.append(client))
    monkeypatch.setattr(gunicorn_config, "STALLED_CLIENT_SECONDS", 2.5)
    monkeypatch.setattr(gunicorn_config, "SEND_BUFFER_BYTES", 8192)
    client, peer = socket.socketpair()
    try:
        gunicorn_config.BoundedGeventWorker.handle(object.__new__(gunicorn_config.BoundedGeventWorker),
                                                   None, client, ("127.0.0.1", 1))
        assert served == [client] and client.gettimeout() == 2.5  # blocking, but bounded (not gevent's forever)
        assert client.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) >= 8192
    finally:
        client.close()
        peer.close()


def test_gunicorn_runs_the_bounded_worker() -> None:
    assert gunicorn_config.worker_class is gunicorn_config.BoundedGeventWorker


def test_the_bounds_are_settings_read_and_checked_with_the_others() -> None:
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0"}
    assert (Config.from_env(env).stalled_client_seconds, Config.from_env(env).send_buffer_bytes) == (30.0, 0)
    settings = Config.from_env({**env, "STALLED_CLIENT_SECONDS": "2.5", "SEND_BUFFER_BYTES": "4096"})
    assert (settings.stalled_client_seconds, settings.send_buffer_bytes) == (2.5, 4096)
    with pytest.raises(ValueError):
        Config.from_env({**env, "SEND_BUFFER_BYTES": "lots"})  # the launcher stops before gunicorn starts
