"""The public client raises the API's errors with their code, and says when a refused call may be retried."""
from __future__ import annotations

import json

import pytest

from services.client import ApiError, TrucClient


class Answer:
    """One scripted HTTP answer, as http.client's response object shows it."""

    def __init__(self, status: int, body: object, headers: dict[str, str]) -> None:
        self.status, self._raw, self._headers = status, json.dumps(body).encode(), headers

    def read(self) -> bytes:
        return self._raw

    def getheader(self, name: str, default: str | None = None) -> str | None:
        return self._headers.get(name, default)


class Connection:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def request(self, *args, **kwargs) -> None:
        pass

    def getresponse(self) -> Answer:
        return self.answer


def _calling(answer: Answer) -> TrucClient:
    client = TrucClient("http://127.0.0.1:1")
    client._local.conn = Connection(answer)
    return client


def test_a_rate_limited_call_raises_with_its_code_limit_and_retry_after() -> None:
    limited = Answer(429, {"error": "RATE_LIMITED", "message": "Too many players were registered from your "
                           "address lately; try again in 12 minutes.", "limit": "registrations"},
                     {"Retry-After": "700", "RateLimit-Limit": "10", "RateLimit-Remaining": "0"})
    with pytest.raises(ApiError) as raised:
        _calling(limited).register("alice")
    error = raised.value
    assert (error.status, error.code, error.limit, error.retry_after) == (429, "RATE_LIMITED", "registrations", 700.0)


def test_an_error_without_retry_after_says_none() -> None:
    with pytest.raises(ApiError) as raised:
        _calling(Answer(409, {"error": "NAME_TAKEN", "message": "The name 'alice' is taken."}, {})).register("alice")
    assert raised.value.code == "NAME_TAKEN" and raised.value.retry_after is None and raised.value.limit is None
