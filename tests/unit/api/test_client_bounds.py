"""Bounds on one client: a deadline on each request's arrival (reads only), connections capped per address."""
from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from shared.client_bounds import ConnectionsPerAddress, DeadlineSocket, within_deadline
from shared.config import Config, trusted_proxies

STALL = 5.0


class TooLateError(Exception):
    pass


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    server.settimeout(STALL)
    yield server, client
    server.close()
    client.close()


def _deadline(server: socket.socket, clock: Clock, seconds: float = 30.0) -> DeadlineSocket:
    return DeadlineSocket(server, seconds, STALL, TooLateError, clock)


def test_a_request_that_arrives_in_time_is_read_whole(pair) -> None:
    server, client = pair
    clock = Clock()
    sock = _deadline(server, clock)
    client.sendall(b"POST / HTTP/1.1\r\n")
    assert sock.recv(100) == b"POST / HTTP/1.1\r\n"  # the first byte arms the deadline
    clock.now += 29
    client.sendall(b"body")
    assert sock.recv(100) == b"body" and not sock.expired


def test_a_body_read_past_the_deadline_raises_inside_the_app_and_reads_as_the_end_outside_it(pair) -> None:
    server, client = pair
    clock = Clock()
    sock = _deadline(server, clock)
    client.sendall(b"head")
    sock.recv(100)
    clock.now += 31
    client.sendall(b"one more byte")  # progress, but too late
    sock.in_app = True
    with pytest.raises(TooLateError):
        sock.recv(100)
    sock.in_app = False
    assert sock.recv(100) == b"" and sock.expired


def test_a_read_waits_only_as_long_as_the_deadline_leaves_then_the_stall_bound_is_back(pair) -> None:
    server, client = pair
    clock = Clock()
    sock = _deadline(server, clock, seconds=0.2)
    client.sendall(b"h")
    sock.recv(1)
    assert sock.recv(100) == b"" and sock.expired  # nothing more came: the real 0.2 s ran out, not STALL
    assert server.gettimeout() == STALL  # the answer's writes keep the stall bound alone


def test_the_next_request_gets_a_deadline_of_its_own_from_its_first_byte(pair) -> None:
    server, client = pair
    clock = Clock()
    sock = _deadline(server, clock)
    client.sendall(b"first")
    sock.recv(100)
    sock.next_request()
    clock.now += 3600  # a keep-alive connection long after: not late, nothing was awaited
    client.sendall(b"second")
    assert sock.recv(100) == b"second"
    clock.now += 29
    client.sendall(b"rest")
    assert sock.recv(100) == b"rest" and not sock.expired


def test_no_deadline_when_it_is_off(pair) -> None:
    server, client = pair
    clock = Clock()
    sock = _deadline(server, clock, seconds=0)
    client.sendall(b"a")
    sock.recv(1)
    clock.now += 10_000
    client.sendall(b"b")
    assert sock.recv(1) == b"b" and not sock.expired


def test_everything_but_reads_is_the_sockets_own(pair) -> None:
    server, client = pair
    sock = _deadline(server, Clock())
    sock.sendall(b"answer")
    assert client.recv(100) == b"answer" and sock.fileno() == server.fileno()


def test_the_app_is_marked_as_reading_while_it_runs_and_not_after(pair) -> None:
    server, _ = pair
    sock, seen = _deadline(server, Clock()), []
    app = within_deadline(lambda environ, start_response: seen.append(sock.in_app) or [b"streamed later"])
    assert app({"gunicorn.socket": sock}, None) == [b"streamed later"]
    assert seen == [True] and sock.in_app is False
    assert app({"gunicorn.socket": server}, None) == [b"streamed later"]  # a plain socket: passed through


def test_connections_are_capped_per_address() -> None:
    caps = ConnectionsPerAddress(2)
    first, second = caps.admit(("10.0.0.1", 1)), caps.admit(("10.0.0.1", 2))
    assert first and second and caps.admit(("10.0.0.1", 3)) is None
    assert caps.admit(("10.0.0.2", 1)) is not None  # another client
    first()
    first()  # given back once only
    assert caps.open("10.0.0.1") == 1 and caps.admit(("10.0.0.1", 4)) is not None


def test_an_ipv6_client_counts_by_its_64() -> None:
    caps = ConnectionsPerAddress(1)
    assert caps.admit(("2001:db8:1:2::1", 1, 0, 0)) is not None
    assert caps.admit(("2001:db8:1:2::ffff", 1, 0, 0)) is None
    assert caps.open("2001:db8:1:2::/64") == 1


def test_trusted_proxies_and_local_sockets_are_not_capped_and_zero_lifts_the_cap() -> None:
    caps = ConnectionsPerAddress(1, trusted_proxies("10.9.0.0/16"))
    assert all(caps.admit(("10.9.0.1", port)) for port in range(5))  # every client behind the proxy
    assert all(caps.admit("") for _ in range(5))  # a unix socket: no peer address
    assert caps.admit(("10.0.0.1", 1)) and caps.admit(("10.0.0.1", 2)) is None
    assert all(ConnectionsPerAddress(0).admit(("10.0.0.1", port)) for port in range(5))


def test_the_settings() -> None:
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0"}
    config = Config.from_env(env)
    assert (config.request_deadline_seconds, config.limits.connections_per_client) == (30.0, 64)
    config = Config.from_env({**env, "REQUEST_DEADLINE_SECONDS": "4", "CONNECTIONS_PER_CLIENT": "5"})
    assert (config.request_deadline_seconds, config.limits.connections_per_client) == (4.0, 5)
    assert Config.from_env({**env, "REQUEST_DEADLINE_SECONDS": "0"}).request_deadline_seconds == 0


def test_one_client_address_never_gets_every_wait() -> None:
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0"}
    config = Config.from_env(env)
    assert config.waits_per_client <= config.max_waits // 2
    assert Config.from_env({**env, "MAX_WAITS": "8", "WAITS_PER_CLIENT": "4"}).waits_per_client == 4
    with pytest.raises(ValueError, match="WAITS_PER_CLIENT"):
        Config.from_env({**env, "MAX_WAITS": "4", "WAITS_PER_CLIENT": "4"})  # the default of before


def test_a_read_that_stalls_is_late_too_quietly_outside_the_app(pair) -> None:
    server, _ = pair
    server.settimeout(0.1)  # the stall bound, short
    sock = DeadlineSocket(server, 30.0, 0.1, TooLateError, Clock())
    assert sock.recv(100) == b"" and sock.expired  # a connection that sends nothing: its end, not an error
    sock.in_app = True
    with pytest.raises(TooLateError):
        sock.recv(100)  # a body that stopped coming: the app answers it
