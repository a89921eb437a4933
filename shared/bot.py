"""The built-in bot's player: the API seats it, the bot service plays as it."""

BOT_PLAYER_ID = "bot"
BOT_NAME = "Bot"
