"""Request and response schemas (marshmallow): the single parser of what clients send."""
from __future__ import annotations

import orjson
from marshmallow import EXCLUDE, INCLUDE, Schema, ValidationError, fields, post_load, validate, validates_schema

from shared import names
from shared.botplay.levels import LEVELS
from shared.keys import ID_PATTERN, LOBBY_STATUSES
from shared.rules import ACTIONS, InvalidRulesError, Rules, Seat

from .language import say


class NameField(fields.String):
    """A player name in any script, loaded in the one form it is kept in (:mod:`shared.names`)."""

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return names.normalise(super()._deserialize(value, attr, data, **kwargs))
        except names.InvalidNameError:
            raise ValidationError(names.RULE) from None


PASSWORD_LENGTH = validate.Length(min=8, max=128)  # characters (API.md "Accounts and sessions")


def password_field(**options) -> fields.String:
    return fields.String(validate=PASSWORD_LENGTH, load_only=True, **options)


class PlayerCreateSchema(Schema):
    name = NameField(required=True, metadata={"description": names.RULE})
    password = password_field(metadata={
        "description": "Optional, 8–128 characters: lets the player log in from another device (`POST /sessions`). "
                       "Without one, the token is the only key."})


class PlayerNameSchema(Schema):
    id = fields.String()
    name = fields.String()


class PlayerSchema(Schema):
    id = fields.String()
    name = fields.String()
    token = fields.String()


class RulesField(fields.Dict):
    """Variant keys of RULES.md section 10, loaded into the ``Rules`` of a new match (R33's target)."""

    def _deserialize(self, value, attr, data, **kwargs):
        raw = super()._deserialize(value, attr, data, **kwargs)
        try:
            return Rules.from_mapping(raw, new=True)
        except InvalidRulesError as error:
            raise ValidationError({error.key: [say(error.template, **error.params)]}) from None


DECK_CARDS = 32  # a fixture deck is a whole deck, in dealing order
CARD_CHARS = 3  # "10H" at most: the rules engine says which cards exist


def _plain_deck(deck: object) -> bool:
    """A deck the nested fields would load as it is: a list of 32 short strings."""
    if type(deck) is not list or len(deck) != DECK_CARDS:
        return False
    for card in deck:  # a plain loop: a third of the cost of all() over a generator
        if type(card) is not str or len(card) > CARD_CHARS:
            return False
    return True


class DecksField(fields.List):
    """Fixture decks: ``List(List(String))``, the same field in the OpenAPI document and the same
    errors, but a well-formed body (the usual one) skips deserialising 32 nested fields a deck."""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is list and all(_plain_deck(deck) for deck in value):
            return [list(deck) for deck in value]
        return super()._deserialize(value, attr, data, **kwargs)


class MatchCreateSchema(Schema):
    opponent = fields.String(validate=validate.OneOf(["bot"]))
    bot_level = fields.String(validate=validate.OneOf(LEVELS), metadata={
        "description": "How the bot plays, with `\"opponent\": \"bot\"`: easy, medium (the default), hard "
                       "(a search of about 100 ms a move) or expert (about 1 s). Without the bot: 400 "
                       "`INVALID_REQUEST`."})
    rules = RulesField(load_default=Rules)
    first_dealer = fields.Enum(Seat, by_value=True, load_default=None, allow_none=True)
    start_scores = fields.List(fields.Integer(strict=True), validate=validate.Length(equal=2))
    decks = DecksField(fields.List(fields.String(validate=validate.Length(max=CARD_CHARS)),
                                   validate=validate.Length(equal=DECK_CARDS)), validate=validate.Length(max=64))
    private = fields.Boolean(load_default=False, metadata={
        "description": "Not listed in the lobby, and joined only with the `invite` the creator's view carries."})
    rated = fields.Boolean(truthy={True}, falsy={False}, metadata={
        "description": "A rated challenge: its result moves both players' Glicko-2 ratings. Never with custom "
                       "terms (decks, start scores, a short clock or a small target) nor against the bot."})

    @validates_schema
    def private_only_for_a_friend(self, data, **kwargs):
        if data.get("private") and data.get("opponent") == "bot":  # the bot sits at once: nothing waits
            raise ValidationError("A match against the bot cannot be private.", "private")

    @validates_schema
    def level_only_against_the_bot(self, data, **kwargs):
        if "bot_level" in data and data.get("opponent") != "bot":  # API.md "Bots": else the level would be lost
            raise ValidationError("Only a match against the bot has a level.", "bot_level")

    @validates_schema
    def rated_only_on_plain_terms(self, data, **kwargs):
        if data.get("rated") and unratable(data):
            raise ValidationError(UNRATABLE, "rated")

    @post_load
    def to_options(self, data, **kwargs):
        if "start_scores" in data:
            data["start_scores"] = tuple(data["start_scores"])
        if "decks" in data:
            data["decks"] = tuple(tuple(deck) for deck in data["decks"])
        return data


UNRATABLE = ("A rated match is played on plain terms against a person: no decks, start scores, short clock, "
             "small target or bot.")  # translated as field_messages.py lists it


def unratable(data: dict) -> bool:
    """Whether a match created with ``data`` could never be rated: custom terms, or the bot."""
    rules = data.get("rules") or Rules()
    return data.get("opponent") == "bot" or "decks" in data or "start_scores" in data or rules.custom_terms


class SeekSchema(Schema):
    rated = fields.Boolean(required=True, truthy={True}, falsy={False}, metadata={
        "description": "Pair only with rated seeks (true) or unrated ones (false)."})
    rules = RulesField(load_default=Rules, metadata={"description": "Variant keys; `turn_seconds` is the clock."})

    @validates_schema
    def rated_only_on_plain_terms(self, data, **kwargs):
        if data.get("rated") and unratable(data):
            raise ValidationError(UNRATABLE, "rated")


class JoinSchema(Schema):
    class Meta:
        unknown = EXCLUDE  # join read no body before: what older clients send stays harmless

    accept_custom = fields.Boolean(
        load_default=False,
        metadata={"description": "Needed to join a custom match: its creator chose the decks or the starting "
                                 "scores (and may know your cards). Without it such a join is 409 CUSTOM_TERMS."},
    )
    invite = fields.String(validate=validate.Length(max=64), metadata={
        "description": "A private match's invite, from its creator's view; without it (or with another) 404."})


class ActionSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(sorted(ACTIONS)))
    card = fields.String(validate=validate.Length(min=1, max=3))

    @validates_schema
    def card_only_for_play(self, data, **kwargs):
        if data.get("type") == "play" and "card" not in data:
            raise ValidationError("A play needs a card, e.g. \"7H\".", "card")
        if data.get("type") not in (None, "play") and "card" in data:
            raise ValidationError("Only a play takes a card.", "card")


def plainly_valid_action(body: bytes) -> dict | None:
    """An action body that :class:`ActionSchema` surely loads as it is (what every client playing by the
    contract sends), read without it: ~10x cheaper on the path of every move. None for anything else,
    which the schema then loads, and whose errors it words."""
    try:
        action = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if type(action) is not dict or type(action.get("type")) is not str or action["type"] not in ACTIONS:
        return None
    if action["type"] != "play":
        return action if len(action) == 1 else None
    card = action.get("card")
    return action if len(action) == 2 and type(card) is str and 1 <= len(card) <= 3 else None


MAX_POSITION = 2**63 - 1  # a stream position (version, entry id part) past this is no position Redis holds


def position(low: int = 0, **options) -> fields.Integer:
    """A version in a match's stream: ``low`` up to :data:`MAX_POSITION`, else 400 (never a store error)."""
    return fields.Integer(validate=validate.Range(min=low, max=MAX_POSITION), **options)


class ViewQuerySchema(Schema):
    min_version = position(strict=False, load_default=0)
    wait = fields.Float(validate=validate.Range(min=0, max=30), load_default=0)


class EventsQuerySchema(Schema):
    after = position(load_default=0)
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=200)


class ReplayQuerySchema(Schema):
    version = position(1, required=True)


class LobbyQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(LOBBY_STATUSES), load_default="waiting")
    after = fields.String(validate=validate.Regexp(f"^{ID_PATTERN}$"), metadata={
        "description": "The id of the last match of the page before: the next page starts after it."})
    limit = fields.Integer(validate=validate.Range(min=1, max=200), load_default=50)


class PlayerMatchesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(LOBBY_STATUSES), load_default="playing")
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=50)


class WindowQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=2**31), load_default=0)
    limit = fields.Integer(validate=validate.Range(min=1, max=500), load_default=50)


class ScoreboardQuerySchema(Schema):
    limit = fields.Integer(validate=validate.Range(min=1, max=500), load_default=50)


class EventSchema(Schema):
    version = fields.Integer()
    type = fields.String()
    schema_version = fields.Integer()
    at = fields.String(metadata={"description": "ISO-8601 UTC, milliseconds"})
    data = fields.Dict(metadata={"description": "Cards not yet shown are null for all but their holder"})
    hash = fields.String(allow_none=True, metadata={
        "description": "This event's link in the match's SHA-256 hash chain; null until the match is finished "
                       "(a link covers hidden cards, so it would let a client test guesses of them)"})


class EventLogSchema(Schema):
    events = fields.List(fields.Nested(EventSchema))


class ActionResultSchema(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))


class ScoreRowSchema(Schema):
    id = fields.String()
    name = fields.String()
    matches_played = fields.Integer()
    matches_won = fields.Integer()
    rounds_won = fields.Integer()
    points_for = fields.Integer()
    points_against = fields.Integer()
    rating = fields.Dict(metadata={"description": "value, rd, volatility, provisional (RD >= 110), games, "
                                                  "wins, losses, shown (e.g. \"1523?\")"})


class ScoreboardSchema(Schema):
    players = fields.List(fields.Nested(ScoreRowSchema))
    version = fields.Integer()


class ErrorSchema(Schema):
    """Every error answered (api_error.py); some codes add detail fields, e.g. ``version`` on 412."""

    class Meta:
        unknown = INCLUDE  # documented as open: detail fields vary by code

    error = fields.String(required=True, metadata={"description": "A stable machine code, e.g. NOT_YOUR_TURN"})
    message = fields.String(required=True, metadata={"description": "One human sentence"})
    fields_ = fields.Dict(data_key="fields", metadata={"description": "What was wrong with each input field"})


class PasswordSetSchema(Schema):
    password = password_field(required=True, metadata={"description": "The new password, 8–128 characters."})
    current = fields.String(load_only=True, validate=validate.Length(max=128), metadata={
        "description": "The password now set: required once the player has one."})


class LoginSchema(Schema):
    name = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=256))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=128))


class PlayerRefSchema(Schema):
    id = fields.String()
    name = fields.String()


class NewSessionSchema(Schema):
    id = fields.String(metadata={"description": "The session's id (`DELETE /players/me/sessions/{id}` ends it)."})
    token = fields.String(metadata={"description": "This device's bearer token (shown only once)."})
    player = fields.Nested(PlayerRefSchema)


class SessionSchema(Schema):
    id = fields.String()
    created_at = fields.String(metadata={"description": "ISO 8601 UTC"})
    last_seen_at = fields.String(allow_none=True, metadata={
        "description": "ISO 8601 UTC: the token's last use, to the minute (null: none yet)"})
    current = fields.Boolean(metadata={"description": "Whether this is the session of the token that asks."})


class SessionListSchema(Schema):
    sessions = fields.List(fields.Nested(SessionSchema))
    password = fields.Boolean(metadata={"description": "Whether the player has set a password."})


class MyMatchesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(LOBBY_STATUSES), load_default="playing")
    after = fields.String(validate=validate.Regexp(f"^{ID_PATTERN}$"), metadata={
        "description": "The id of the last match of the page before: the next page starts after it."})
    limit = fields.Integer(validate=validate.Range(min=1, max=200), load_default=50)
