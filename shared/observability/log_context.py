"""The ids a log line is about: bound for a request or a job, written by :mod:`.logs`.

A ``ContextVar`` is per thread and per greenlet, so under gevent each request sees its own.
``X-Request-ID``: a client's id is kept when it is 1-64 safe characters (letters, digits,
``.``, ``_``, ``-``), else replaced by a new one; none sent, one is made.
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_fields: ContextVar[dict[str, Any]] = ContextVar("truc_log_fields", default={})  # noqa: B039 - never mutated


def request_id(sent: str | None) -> str:
    """The request's id: ``sent`` if it is safe, else a new one."""
    if sent is not None and _SAFE_ID.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


def bind(**fields: Any) -> Token:
    """Add ``fields`` (e.g. ``match_id``) to every line logged in this context; the token undoes it."""
    return _fields.set({**_fields.get(), **{k: v for k, v in fields.items() if v is not None}})


def unbind(token: Token) -> None:
    _fields.reset(token)


def clear() -> None:
    """Forget every bound field (a new request on a reused greenlet or thread)."""
    _fields.set({})


@contextmanager
def bound(**fields: Any) -> Iterator[None]:
    token = bind(**fields)
    try:
        yield
    finally:
        unbind(token)


def current() -> dict[str, Any]:
    """The fields bound now."""
    return _fields.get()
