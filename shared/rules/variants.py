"""Per-match rule variants (RULES.md section 10, and R28's clock), recorded in the match's first event."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any

from .rule_errors import N_, TemplatedError


class RaiseLadder(StrEnum):
    SEED = "seed"  # 1, 2, 6, 8, 10, ... (R16, the source text)
    EVEN = "even"  # 1, 2, 4, 6, 8, ...


class RemainderReject(StrEnum):
    MATCH = "match"  # the declarer wins the match (R18)
    PREVIOUS_VALUE = "previous_value"  # the declarer scores v


class RedealProposer(StrEnum):
    EITHER = "either"
    NON_DEALER = "non_dealer"


# A recorded match may hold a target up to MAX_TARGET (matches created before R33 keep it: they
# still decode, fold, audit and import); a new match chooses one up to MAX_NEW_TARGET (R33).
MAX_TARGET = 1000  # keeps every score and scoreboard total far inside 32 bits
MAX_NEW_TARGET = 100  # R33: with the round cap, bounds how long a new match (and a replay of it) can grow
ROUNDS_PER_POINT = 4  # R33: a match ends after ROUNDS_PER_POINT x target rounds
MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 604_800  # R28: from five seconds to a week
# Below these a clock or a target is custom terms (like decks and start scores): a trap for a
# joiner who cannot answer in time, or a match over in one round; never ranked.
RANKED_TURN_SECONDS, RANKED_TARGET = 15, 6


class InvalidRulesError(TemplatedError):
    """Raised for an unknown variant key or a value the variant does not allow."""

    def __init__(self, key: str, template: str, /, **params: object) -> None:
        super().__init__(template, **params)
        self.key = key


@dataclass(frozen=True)
class Rules:
    """The variant settings of one match; the defaults are the source text's rules."""

    raise_ladder: RaiseLadder = RaiseLadder.SEED
    remainder_reject: RemainderReject = RemainderReject.MATCH
    alternate_requests: bool = True
    redeal_proposer: RedealProposer = RedealProposer.EITHER
    redeals_per_round: int = 1
    target: int = 12
    turn_seconds: int = 60  # R28: how long the seat that owes a decision has to make it

    def next_value(self, value: int) -> int:
        """The value a raise proposes from the accepted value ``value`` (R16)."""
        if self.raise_ladder is RaiseLadder.SEED and value == 2:
            return 6
        return 2 if value == 1 else value + 2

    @property
    def round_cap(self) -> int:
        """R33: the number of rounds after which the match ends, whatever the scores."""
        return ROUNDS_PER_POINT * self.target

    @property
    def custom_terms(self) -> bool:
        """A clock or a target short enough to be custom terms: joined only by consent, never ranked."""
        return self.turn_seconds < RANKED_TURN_SECONDS or self.target < RANKED_TARGET

    def to_dict(self) -> dict[str, Any]:
        # Every view carries the rules: read the fields directly (``asdict`` copies deeply).
        values = ((name, getattr(self, name)) for name in _FIELD_NAMES)
        return {name: getattr(value, "value", value) for name, value in values}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, *, new: bool = False) -> Rules:
        """Build rules from variant keys, refusing unknown keys and values.

        ``new``: the rules of a match being created, held to R33's smaller target; without it
        (decoding a recorded match) any target a match was ever recorded with is taken.
        """
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidRulesError(key, N_("unknown rule variant {key}"), key=repr(key))
        return cls(
            raise_ladder=_enum(RaiseLadder, data, "raise_ladder", cls.raise_ladder),
            remainder_reject=_enum(RemainderReject, data, "remainder_reject", cls.remainder_reject),
            alternate_requests=_bool(data, "alternate_requests", cls.alternate_requests),
            redeal_proposer=_enum(RedealProposer, data, "redeal_proposer", cls.redeal_proposer),
            redeals_per_round=_int(data, "redeals_per_round", cls.redeals_per_round, 0, 1),
            target=_int(data, "target", cls.target, 1, MAX_NEW_TARGET if new else MAX_TARGET),
            turn_seconds=_int(data, "turn_seconds", cls.turn_seconds, MIN_TURN_SECONDS, MAX_TURN_SECONDS),
        )


_FIELD_NAMES = tuple(f.name for f in fields(Rules))


def _enum(kind: type[Enum], data: Mapping[str, Any], key: str, default: Enum) -> Any:
    raw = data.get(key, default)
    try:
        return kind(raw)
    except ValueError:
        allowed = ", ".join(repr(item.value) for item in kind)
        raise InvalidRulesError(key, N_("{key} must be one of {allowed}"), key=key, allowed=allowed) from None


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    raw = data.get(key, default)
    if not isinstance(raw, bool):
        raise InvalidRulesError(key, N_("{key} must be true or false"), key=key)
    return raw


def _int(data: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    raw = data.get(key, default)
    if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
        raise InvalidRulesError(key, N_("{key} must be a whole number from {low} to {high}"), key=key, low=low,
                                high=high)
    return raw
