"""Refusals: a stable machine code and a sentence a player understands (R27)."""
from __future__ import annotations

from enum import StrEnum


class RuleCode(StrEnum):
    """R27 codes in precedence order (the first that applies is the answer), then the codes of
    section 12 (time, resignation, cancellation) and of seating."""

    MATCH_OVER = "MATCH_OVER"
    NOT_STARTED = "NOT_STARTED"
    QUESTION_PENDING = "QUESTION_PENDING"
    NOTHING_TO_ANSWER = "NOTHING_TO_ANSWER"
    OWN_QUESTION = "OWN_QUESTION"
    REDEAL_CLOSED = "REDEAL_CLOSED"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    REMAINDER_ROUND = "REMAINDER_ROUND"
    NOT_ENTITLED = "NOT_ENTITLED"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    # Section 12: a cancel once the second player joined; a timeout or lobby expiry not yet due.
    MATCH_STARTED = "MATCH_STARTED"
    NOT_DUE = "NOT_DUE"
    # Seating a player, outside R27's table.
    MATCH_FULL = "MATCH_FULL"
    ALREADY_SEATED = "ALREADY_SEATED"
    MATCH_EXISTS = "MATCH_EXISTS"
    NO_MATCH = "NO_MATCH"


def N_(message: str) -> str:
    """Marks an English sentence kept aside (in a table) for translation; it stays English here."""
    return message


class Templated(Exception):
    """A refusal as an English sentence: ``template`` with ``{placeholders}`` and the ``params``
    that fill them in (a server answers it in the player's language); ``message`` is the English
    sentence."""

    def __init__(self, template: str, /, **params: object) -> None:
        self.template, self.params = template, params
        self.message = template.format(**params) if params else template
        super().__init__(self.message)


class RuleError(Templated):
    """A command the rules refuse; nothing is recorded. (Not a ValueError: a caller that
    catches bad values, such as the audit's, must not take a refused command for one.)"""

    def __init__(self, code: RuleCode, template: str, **params: object) -> None:
        super().__init__(template, **params)
        self.code = code

    def __repr__(self) -> str:
        return f"RuleError({self.code.value}, {self.message!r})"


class TemplatedError(Templated, ValueError):
    """A value refused with an English sentence (a rule, a card, a deck, a match's setup)."""


class SetupError(TemplatedError):
    """A match cannot be created with these parameters (bad rules, scores or decks)."""

    def __init__(self, field: str, template: str, /, **params: object) -> None:
        super().__init__(template, **params)
        self.field = field
