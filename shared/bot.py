"""The built-in bot's player: the API seats it, the bot service plays as it.

Its identity is the ``BOT_TOKEN`` secret, shared by both. A token that anyone could guess
would let anyone act as the bot in every bot match, so known defaults and short tokens are
refused, and the API keeps only the current token: rotating it revokes the previous one.
"""

BOT_PLAYER_ID = "bot"
BOT_NAME = "Bot"
BOT_LEVEL = "medium"  # the built-in bot's level when the creator names none, recorded in match_created
MIN_TOKEN_CHARS = 32  # secrets.token_urlsafe(32) gives 43
KNOWN_DEFAULTS = frozenset({
    "change-this-bot-secret", "changeme", "change-me", "change-this", "secret", "bot", "password", "token",
})


class WeakBotTokenError(ValueError):
    """A BOT_TOKEN that could be guessed: a known default, or too short."""


def checked_bot_token(token: str | None) -> str | None:
    """``token`` if it is strong enough (None stays None: no bot); WeakBotTokenError otherwise."""
    if token is None:
        return None
    if token.strip().lower() in KNOWN_DEFAULTS:
        raise WeakBotTokenError("BOT_TOKEN is a known default: set a long random secret "
                                "(python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    if len(token) < MIN_TOKEN_CHARS:
        raise WeakBotTokenError(f"BOT_TOKEN must be at least {MIN_TOKEN_CHARS} characters of random secret")
    return token
