"""The API's gunicorn worker: gevent's, with client sockets that time out once stalled, capped per address."""
from __future__ import annotations

import logging
import socket
from typing import Any

import pytest
from gunicorn.config import Config as GunicornConfig
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from services.api import gunicorn_config
from shared.client_bounds import ConnectionsPerAddress
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
        assert [wrapped.fileno() for wrapped in served] == [client.fileno()]  # the client, behind its deadline
        assert client.gettimeout() == 2.5  # blocking, but bounded (not gevent's forever)
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


def test_a_connection_past_its_addresss_cap_is_closed_before_it_is_served(monkeypatch) -> None:
    served: list[Any] = []
    monkeypatch.setattr(AsyncWorker, "handle", lambda self, listener, client, addr: served.append(client))
    monkeypatch.setattr(gunicorn_config, "CONNECTIONS", ConnectionsPerAddress(1))
    held = gunicorn_config.CONNECTIONS.admit(("127.0.0.1", 1))  # one connection of that address is open
    worker = object.__new__(gunicorn_config.BoundedGeventWorker)
    worker.log = logging.getLogger("test")
    client, peer = socket.socketpair()
    try:
        worker.handle(None, client, ("127.0.0.1", 2))
        assert served == [] and client.fileno() == -1  # closed at once, nothing read
        held()
        other, other_peer = socket.socketpair()
        worker.handle(None, other, ("127.0.0.1", 3))
        assert len(served) == 1 and gunicorn_config.CONNECTIONS.open("127.0.0.1") == 0  # counted, then given back
        other.close()
        other_peer.close()
    finally:
        client.close()
        peer.close()


def test_gunicorn_opens_no_control_socket() -> None:
    settings = GunicornConfig()
    for name, value in vars(gunicorn_config).items():
        if name in settings.settings:
            settings.set(name, value)
    assert settings.control_socket_disable is True  # none at $HOME/.gunicorn/gunicorn.ctl, shared by every API


def test_an_answer_whose_client_stopped_reading_closes_the_connection_quietly(monkeypatch) -> None:
    def stalled(self, listener_name, req, sock, addr):
        raise TimeoutError("timed out")  # the stall bound, on a write

    monkeypatch.setattr(GeventWorker, "handle_request", stalled)
    worker = object.__new__(gunicorn_config.BoundedGeventWorker)
    with pytest.raises(StopIteration):  # gunicorn closes it at debug level, where an OSError logs a traceback
        worker.handle_request(None, None, None, None)
