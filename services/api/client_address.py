"""Who is calling, by address: the current request's client, as the per-address limits and waits count it.

How an address counts (trusted proxies, ``X-Forwarded-For``, IPv6 by its /64) is
:mod:`shared.addresses`, which the gunicorn worker's connection cap follows too.
"""
from __future__ import annotations

from flask import request

from shared.addresses import UNKNOWN, address_of

from .wiring import services

__all__ = ["UNKNOWN", "address_of", "client_address"]


def client_address() -> str:
    """The current request's client address, as the limits count it."""
    return address_of(request.remote_addr, request.headers.getlist("X-Forwarded-For"), services().trusted_proxies)
