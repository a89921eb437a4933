"""The sentences validation writes into a 400's ``fields``, as templates, marked for translation.

Marshmallow's and webargs' own messages and the project's schemas', which reach ``fields``
as text with their values already filled in: :func:`services.api.language.field_text`
matches a sentence against these templates to find what to translate and the values to put
back. The player-name rule is :data:`shared.names.RULE`; its sentence is here so that it is
translated too (a test holds the two alike). The rules' and cards' refusals carry their own
template and values (:class:`shared.rules.rule_errors.TemplatedError`): nothing is matched back.
"""
from __future__ import annotations

from shared.rules.rule_errors import N_

FIELD_MESSAGES = (
    # marshmallow and webargs
    N_("Missing data for required field."),
    N_("Field may not be null."),
    N_("Invalid value."),
    N_("Not a valid string."),
    N_("Not a valid utf-8 string."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Number too large."),
    N_("Special numeric values (nan or infinity) are not permitted."),
    N_("Not a valid boolean."),
    N_("Not a valid list."),
    N_("Not a valid mapping type."),
    N_("Invalid type."),
    N_("Invalid input type."),
    N_("Unknown field."),
    N_("Invalid JSON body."),
    N_("Must be one of: {choices}."),
    N_("Length must be between {min} and {max}."),
    N_("Length must be {equal}."),
    N_("Longer than maximum length {max}."),
    N_("Shorter than minimum length {min}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than or equal to {min}."),
    N_("String does not match expected pattern."),
    # this project's schemas and the API's headers
    N_("1-32 characters of the PRECIS Nickname profile (RFC 8266): letters, digits, "
       "symbols and spaces in any script; no control, format, bidi or invisible characters."),
    N_("A play needs a card, e.g. \"7H\"."),
    N_("Only a play takes a card."),
    N_("A match against the bot cannot be private."),
    N_("Only a match against the bot has a level."),
    N_("A rated match is played on plain terms against a person: no decks, start scores, short clock, "
       "small target or bot."),
    N_("Not a version."),
    N_("1-64 characters."),
)
