"""Idempotency-Key: a retried request gets its first answer again, events or refusal.

The key is scoped to the player, and the request's body is fingerprinted, so a key reused
with another body is told apart from a retry. The store records a token atomically with
the events it made; a refused request claims its token too, so that its retry is refused
the same way instead of acting on a match that moved on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from shared.eventstore import AppendToken, TokenRecord
from shared.rules import RuleCode, RuleError, Seat

from ..players import Player
from .application_errors import ApplicationError, KeyInUseError, KeyReusedError
from .loading import latest
from .matches import Matches
from .recording import Recorded


def token_for(player: Player, action: Mapping[str, Any], key: str | None) -> AppendToken | None:
    """The append token of a request with Idempotency-Key ``key`` (None without one)."""
    if key is None:
        return None
    scope = hashlib.sha256(f"{player.id}\x00{key}".encode()).hexdigest()
    body = hashlib.sha256(orjson.dumps(dict(action), option=orjson.OPT_SORT_KEYS)).hexdigest()
    return AppendToken(scope, body)


def replay(matches: Matches, match_id: str, seat: Seat, token: AppendToken) -> Recorded | None:
    """The first answer to the request with ``token``, if it had one (see :func:`replayed`)."""
    earlier = matches.store.token(match_id, token.key)
    return None if earlier is None else replayed(matches, match_id, seat, token, earlier)


def replayed(matches: Matches, match_id: str, seat: Seat, token: AppendToken, earlier: TokenRecord) -> Recorded:
    """The first answer of an idempotent retry: its events, or its refusal raised again."""
    if earlier.fingerprint != token.fingerprint:
        raise KeyReusedError(match_id)
    if earlier.refusal is not None:
        answer = orjson.loads(earlier.refusal)
        template = answer.get("template", answer["message"])  # answers remembered before translation: English
        raise RuleError(RuleCode(answer["code"]), template, **answer.get("params", {}))
    first, last = earlier.first_version, earlier.last_version
    stored = matches.store.read(match_id, after=first - 1, limit=last - first + 1)
    return Recorded(match_id, last, latest(matches, match_id).state, stored, seat)


def remembered(
    matches: Matches, match_id: str, seat: Seat, token: AppendToken | None, refusal: RuleError,
    finished: bool = False,
) -> Exception:
    """The refusal to raise, remembered under the request's token so a retry gets it too.

    A match that is over (finished or cancelled) is not remembered for: it refuses every
    action, the same way, for ever.
    """
    if token is None or finished:
        return refusal
    answer = orjson.dumps({"code": refusal.code.value, "message": refusal.message, "template": refusal.template,
                           "params": refusal.params}).decode()
    earlier = matches.store.remember_refusal(match_id, token, answer)
    if earlier is None:
        return refusal
    try:  # the same key raced itself and the other request answered first
        replayed(matches, match_id, seat, token, earlier)
    except (ApplicationError, RuleError) as first_answer:
        return first_answer
    return KeyInUseError(match_id)
