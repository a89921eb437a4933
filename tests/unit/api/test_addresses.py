"""The client address: the socket's, or what a trusted proxy says it forwarded, never what a client says."""
from __future__ import annotations

import pytest

from services.api.client_address import UNKNOWN, address_of
from shared.config import trusted_proxies

PROXIES = trusted_proxies("10.9.0.0/16, 192.0.2.7, 2001:db8:ffff::/48")


@pytest.mark.parametrize(("peer", "forwarded", "client"), [
    ("203.0.113.5", [], "203.0.113.5"),
    ("203.0.113.5", ["198.51.100.1"], "203.0.113.5"),  # not a proxy we trust: its header is the client's word
    ("10.9.0.1", ["198.51.100.1"], "198.51.100.1"),
    ("10.9.0.1", ["6.6.6.6, 198.51.100.1"], "198.51.100.1"),  # the client wrote 6.6.6.6 itself
    ("10.9.0.1", ["6.6.6.6, 198.51.100.1, 192.0.2.7"], "198.51.100.1"),  # two proxies of ours in a row
    ("10.9.0.1", ["6.6.6.6", "198.51.100.1"], "198.51.100.1"),  # the header sent twice reads as one list
    ("10.9.0.1", ["192.0.2.7"], "192.0.2.7"),  # nothing before our proxies: the last one is the client
    ("10.9.0.1", [], "10.9.0.1"),
    ("10.9.0.1", ["6.6.6.6, nonsense"], "10.9.0.1"),  # our proxy wrote nonsense: count the proxy
    ("10.9.0.1", ["198.51.100.1:4711"], "198.51.100.1"),
    ("10.9.0.1", ["[2001:db8:1:2::7]:443"], "2001:db8:1:2::/64"),
    ("2001:db8:ffff:1::1", ["2001:db8:1:2::7"], "2001:db8:1:2::/64"),
    ("2001:db8:1:2:aaaa::1", [], "2001:db8:1:2::/64"),  # one /64, one client
    ("::ffff:203.0.113.5", [], "203.0.113.5"),
    (None, [], UNKNOWN),
    ("", ["198.51.100.1"], UNKNOWN),
])
def test_the_client_address(peer: str | None, forwarded: list[str], client: str) -> None:
    assert address_of(peer, forwarded, PROXIES) == client


def test_without_trusted_proxies_the_header_is_never_believed() -> None:
    assert address_of("127.0.0.1", ["198.51.100.1"], ()) == "127.0.0.1"
