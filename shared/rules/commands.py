"""Commands: what a player, or the service (seating, the clock, the lobby), asks the engine to do."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .state import Seat
from .variants import Rules


@dataclass(frozen=True)
class CreateMatch:
    match_id: str
    creator_id: str
    rules: Rules = Rules()
    first_dealer: Seat | None = None  # None: drawn from the randomness passed to decide
    start_scores: tuple[int, int] | None = None  # given at all: the match is custom
    decks: tuple[tuple[str, ...], ...] = ()
    private: bool = False  # unlisted: joined only with the invite its creator was given
    capped: bool = True  # R33's round cap applies; only the audit, re-deciding an older match, says False
    rated: bool = False  # counts for the players' ratings
    bot_level: str | None = None  # the built-in bot's level, when it is seated at creation


@dataclass(frozen=True)
class JoinMatch:
    player_id: str


@dataclass(frozen=True)
class PlayerAction:
    """Base of the player actions; ``action`` is its name in the HTTP API."""

    seat: Seat
    action: ClassVar[str] = ""

    def body(self) -> dict[str, Any]:
        """The action as a client sends it (``{"type": "raise"}``)."""
        return {"type": self.action}


@dataclass(frozen=True)
class PlayCard(PlayerAction):
    card: str = field(default="")
    action: ClassVar[str] = "play"

    def body(self) -> dict[str, Any]:
        return {"type": self.action, "card": self.card}


@dataclass(frozen=True)
class Raise(PlayerAction):
    action: ClassVar[str] = "raise"


@dataclass(frozen=True)
class DeclareRemainder(PlayerAction):
    action: ClassVar[str] = "remainder"


@dataclass(frozen=True)
class Accept(PlayerAction):
    action: ClassVar[str] = "accept"


@dataclass(frozen=True)
class Reject(PlayerAction):
    action: ClassVar[str] = "reject"


@dataclass(frozen=True)
class Fold(PlayerAction):
    action: ClassVar[str] = "fold"


@dataclass(frozen=True)
class ProposeRedeal(PlayerAction):
    action: ClassVar[str] = "propose_redeal"


@dataclass(frozen=True)
class Resign(PlayerAction):
    """R31: the opponent wins the match at once, scores as they stood."""

    action: ClassVar[str] = "resign"


@dataclass(frozen=True)
class Cancel(PlayerAction):
    """R32: the creator (seat A) closes the match while it waits for a second player."""

    action: ClassVar[str] = "cancel"


ACTIONS: dict[str, type[PlayerAction]] = {
    kind.action: kind
    for kind in (PlayCard, Raise, DeclareRemainder, Accept, Reject, Fold, ProposeRedeal, Resign, Cancel)
}


@dataclass(frozen=True)
class TimeOut:
    """The service's clock (R29-R30): ``seat``'s deadline has passed at ``now_ms`` (epoch ms).

    Refused (``NOT_DUE``) unless ``seat`` still owes the match's decision and its deadline
    is at or before ``now_ms``: a move that landed first restarted the clock.
    """

    seat: Seat
    now_ms: int


@dataclass(frozen=True)
class ExpireLobby:
    """The service's lobby sweep (R32): cancel a match nobody joined within ``lobby_seconds``
    of its creation, as of ``now_ms`` (epoch ms)."""

    now_ms: int
    lobby_seconds: int


def command_for(seat: Seat, body: Mapping[str, Any]) -> PlayerAction:
    """Turn an action body (``{"type": "play", "card": "7H"}``) into a command for ``seat``.

    Raises KeyError for an unknown action type; the card is checked by ``decide``.
    """
    kind = ACTIONS[body["type"]]
    if kind is PlayCard:
        return PlayCard(seat, str(body.get("card", "")))
    return kind(seat)
