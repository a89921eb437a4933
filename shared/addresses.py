"""Who is calling, by address: what the per-address limits, waits and connection caps count.

The API's requests and its gunicorn worker's connections both count clients by address, and
must agree on what one client is (the worker is loaded before the app and imports none of it,
so the rule lives here). The client address is the socket's peer, unless that peer is a proxy
named in ``TRUSTED_PROXIES``: then it is the ``X-Forwarded-For`` entry that proxy added (its
last), and so on leftwards while the entry is itself a trusted proxy. Entries further left
were written by whoever sent the request, so they are never believed, and neither is the
header from any other peer. An IPv6 client counts by its /64, the block one subscriber gets:
one address of each would otherwise be a fresh client.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from shared.config import Network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
UNKNOWN = "unknown"  # no peer address at all (a unix socket): such clients share one count


def address_of(peer: str | None, forwarded_for: Iterable[str], trusted: Sequence[Network]) -> str:
    """The client behind ``peer``, believing ``forwarded_for`` only as far as ``trusted`` proxies wrote it."""
    address = _parsed(peer or "")
    if address is None:
        return UNKNOWN
    hops = [hop for header in forwarded_for for hop in header.split(",")]
    while hops and _within(address, trusted):
        forwarded = _parsed(hops.pop())
        if forwarded is None:
            break  # a proxy we trust wrote nonsense: count the proxy itself
        address = forwarded
    return _counted(address)


def is_trusted(peer: str | None, trusted: Sequence[Network]) -> bool:
    """Whether ``peer`` is one of the ``trusted`` proxies (which speak for many clients)."""
    address = _parsed(peer or "")
    return address is not None and _within(address, trusted)


def _within(address: Address, networks: Sequence[Network]) -> bool:
    return any(address in network for network in networks)


def _parsed(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _counted(address: Address) -> str:
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
