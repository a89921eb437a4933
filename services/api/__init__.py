"""The game-command service: a Flask app factory. No I/O happens at import."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import redis
from flask import Flask

from shared.archive import Archive
from shared.archive.archived_reads import ArchivedReads, ArchivedSeeds, archive_of, archived_reads
from shared.archive.archived_summaries import ArchivedSummaries
from shared.bot import BOT_NAME, BOT_PLAYER_ID, WeakBotTokenError, checked_bot_token
from shared.config import Config
from shared.connect import connect
from shared.directory import names_in
from shared.eventstore import Acknowledgement, RedisEventStore
from shared.eventstore.port import Clock, system_clock
from shared.limits import Counters
from shared.observability import metrics
from shared.ratings.rating_fold import NEW_PLAYER
from shared.readmodels import ReadModels
from shared.seeds import SeedVault
from shared.subscriber import Subscriber

from . import (
    accounts,
    command_endpoints,
    error_handlers,
    health,
    history,
    http_errors,
    observe,
    rating_reads,
    reading,
    reference,
    rename_erase,
    seek_endpoints,
)
from .abuse_limits import Limiter, rate_limit_headers
from .api_error import ApiError
from .app import Matches, latest
from .app.matches import RidingRequest
from .archive_health import ArchiveHealth
from .browser_table import blp as table_blueprint
from .catch_up_requests import CatchUpRequests, catch_up_queue, rebuild_queue
from .docs_page import ASSETS_URL, DOCS_PATH, serve_docs
from .fanout import CLIENT_NAME as FANOUT_CLIENT_NAME
from .feeds import live_feeds
from .last_seen import LastSeen
from .matchmaking import Matchmaker
from .passwords import Passwords
from .player_stream import blp as player_stream_blueprint
from .players import Player, PlayerRegistry
from .privacy import mark_private
from .renamed_listener import NameChanges
from .revocation_listener import Revocations
from .round_trips import RoundTripCounter
from .rules_page import blp as rules_blueprint
from .seek_pool import SeekPool
from .sessions import SessionRegistry
from .slots import Slots
from .smorest import DocumentedApi, IdConverter, id_param_schema
from .stream import blp as stream_blueprint
from .token_cache import TokenCache
from .tokens import blp as tokens_blueprint
from .wiring import Services

MAX_BODY_BYTES = 64 * 1024

# The bearer token of API.md "Identity", declared so /docs can authorise; optional everywhere
# ({}: anonymous), since reads need none and each call that does answers 401 without it.
BEARER_SCHEME = {
    "components": {"securitySchemes": {"bearer": {
        "type": "http", "scheme": "bearer",
        "description": "A player's token: from `POST /players` (registration) or `POST /sessions` (logging in)."}}},
    "security": [{}, {"bearer": []}],
}


def create_app(
    config: Config, redis_client: Any = None, queue_client: Any = None, clock: Clock = system_clock,
    archive: Archive | None = None,
) -> Flask:
    """Wire the API for ``config``; tests may pass their own Redis clients, the clock that
    times the events (epoch ms) and the archive of the matches that left Redis."""
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        API_TITLE="Le Truc game-command service",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS=BEARER_SCHEME,
        OPENAPI_SWAGGER_UI_PATH=DOCS_PATH,
        OPENAPI_SWAGGER_UI_URL=ASSETS_URL,  # served by serve_docs: the docs work offline
    )
    metrics.configure(config.metrics)
    app.extensions["truc"] = _services(app, config, redis_client, queue_client, clock, archive)
    observe.install(app, app.extensions["truc"])
    _route(app)
    return app


def _services(
    app: Flask, config: Config, redis_client: Any, queue_client: Any, clock: Clock, archive: Archive | None,
) -> Services:
    """What the views use, over the configured Redis (or the clients given)."""
    # The benchmark counts the API's round trips (services/api/round_trips.py); nothing else does.
    count = RoundTripCounter(config.data_dir) if reference.enabled() else None
    client = redis_client or connect(config.redis_url, max_connections=config.redis_connections, count=count)
    queue_redis = queue_client or (client if config.queue_url == config.redis_url else connect(config.queue_url))
    queue, rebuilds = catch_up_queue(queue_redis, config.queue_name), rebuild_queue(queue_redis, config.queue_name)
    lanes = CatchUpRequests(queue, config.catch_up_lanes)
    notify = _catch_up_asker(app, lanes)
    archive = archive_of(config) if archive is None else archive
    store = _store(config, client, clock, archive)
    # A catch-up request rides its append when the lanes share the streams' server and the store lets it ride.
    riding = _riding_asker(app, lanes) if queue_redis is client and store.streams.rides_along else None
    subscriber = Subscriber(client, FANOUT_CLIENT_NAME)  # one for the process: its streams, waits and revocations
    known_tokens: TokenCache[Player] = TokenCache()
    revocations = Revocations(known_tokens, subscriber)
    players = PlayerRegistry(client, known_tokens, trusted=revocations.trusted)
    # An archived match's commands are refused as a finished one's.
    matches = Matches(store, notify, ArchivedSeeds(SeedVault(client), store), archived=store.is_archived,
                      alongside=True, riding=riding)  # the store, the seeds and the player directory share ``client``
    read_models = _read_models(client, subscriber, store, NameChanges(subscriber))
    limits = Limiter(Counters(client, clock), config.limits, config.lobby_seconds, BOT_PLAYER_ID)
    return Services(
        redis=client, store=store, players=players, matches=matches,
        read_models=read_models, queue_health=lambda: {"name": queue.name, "waiting": queue.count},
        bot=_bot_seat(players, config.bot_token), streams=Slots(config.max_streams, on_change=metrics.record_stream),
        feeds=live_feeds(subscriber, read_models.feeds, lambda match_id: latest(matches, match_id),
                         read_models.names),
        keep_alive_seconds=config.keep_alive_seconds,
        waits=Slots(config.max_waits, per_client=config.waits_per_client),
        limits=limits,
        trusted_proxies=config.trusted_proxies,
        queue_depths=lambda: {queue.name: queue.count, rebuilds.name: rebuilds.count},
        revoked=revocations.revoked,
        archive=ArchiveHealth(archive, client, config.archive_after), **_accounts(client, known_tokens, revocations),
        **_players_settings(config),
        matchmaker=_matchmaker(config, client, matches, players, limits, read_models, clock),
    )


def _catch_up_asker(app: Flask, lanes: CatchUpRequests) -> Callable[[str], None]:
    """What an append calls: ask the projector to catch the match up (its lane's queue)."""
    def notify(match_id: str) -> None:
        try:
            lanes.request(match_id)
        except redis.RedisError:
            _left_to_the_sweep(app, match_id)
    return notify


def _left_to_the_sweep(app: Flask, match_id: str) -> None:
    # The append already marked the match unprojected: a worker's sweep catches it up.
    app.logger.warning("could not enqueue the catch-up of %s; the sweep will", match_id)


def _riding_asker(app: Flask, lanes: CatchUpRequests) -> Callable[[str, int], RidingRequest | None]:
    """The catch-up request to send in the round trip of the append that leads a match to a
    version (:meth:`LaneRequests.riding_request`); None if the lanes cannot be counted now."""
    def riding(match_id: str, version: int) -> RidingRequest | None:
        try:
            command, filed = lanes.riding_request(match_id, version)
        except redis.RedisError:
            return None  # the append asks as usual, if it must

        def answered(reply: object) -> bool:
            try:
                return filed(reply)
            except redis.RedisError:  # filed, but its drain could not be queued: the lane is disarmed again
                _left_to_the_sweep(app, match_id)
                return True
        return command, answered
    return riding


def _players_settings(config: Config) -> dict[str, Any]:
    """How long a name given up stays reserved, and what an erasure does to a seated player's matches."""
    return {"name_reserve_seconds": round(config.name_reserve_days * 86400), "erase_in_match": config.erase_in_match}


def _read_models(client: Any, subscriber: Subscriber, store: ArchivedReads, changes: NameChanges) -> ReadModels:
    """The read side, its lists keeping the archived matches (their lines rendered from the archive), what
    it keeps of them forgotten when a player is renamed or erased."""
    changes.lines = ArchivedSummaries(store, partial(names_in, client), kept=changes.kept)
    changes.records = store.cache
    return ReadModels(client, subscriber, archived_summary=changes.lines)


def _accounts(client: Any, known_tokens: TokenCache[Player], revocations: Revocations) -> dict[str, Any]:
    """Sessions, passwords and when each session was last seen (what ``POST /sessions`` needs)."""
    return {"sessions": SessionRegistry(client, known_tokens), "passwords": Passwords(client),
            "last_seen": LastSeen(client, revocations.revoked)}


def _store(config: Config, client: Any, clock: Clock, archive: Archive) -> ArchivedReads:
    """The streams (``APPEND_ACK``: how durable an append must be), and the archived matches past them."""
    ack = Acknowledgement.of(config.append_ack, config.append_ack_timeout_ms)
    streams = RedisEventStore(client, clock=clock, ack=ack)
    return archived_reads(streams, client, archive)


def _matchmaker(config: Config, client: Any, matches: Matches, players: PlayerRegistry, limits: Limiter,
                read_models: ReadModels, clock: Clock) -> Matchmaker:
    """Quick pairing and rematches over the seek pool, seeks placed by the ratings served."""
    def rating_of(player_id: str) -> float:
        rating = read_models.ratings().rating(player_id)
        return NEW_PLAYER.rating.value if rating is None else rating.rating.value

    return Matchmaker(SeekPool(client, clock), matches, players, limits, read_models.feeds.append, rating_of,
                      config.seek_seconds, clock, config.rematch_seconds)


def _route(app: Flask) -> None:
    """The documented API's blueprints and error answers, the browser table, and the docs' assets."""
    app.url_map.converters["id"] = IdConverter
    api = DocumentedApi(app)
    api.register_converter(IdConverter, id_param_schema)
    error_handlers.register(app)
    http_errors.register(app)
    app.after_request(rate_limit_headers)
    app.after_request(mark_private)
    api.register_blueprint(command_endpoints.blp)
    api.register_blueprint(reading.blp)
    api.register_blueprint(rating_reads.blp)
    api.register_blueprint(seek_endpoints.blp)
    api.register_blueprint(health.blp)
    api.register_blueprint(history.blp)
    api.register_blueprint(stream_blueprint)
    api.register_blueprint(player_stream_blueprint)
    api.register_blueprint(tokens_blueprint)
    api.register_blueprint(rename_erase.blp)
    api.register_blueprint(accounts.blp)
    app.register_blueprint(table_blueprint)
    app.register_blueprint(rules_blueprint)
    if reference.enabled():  # benchmark-only, and kept out of the OpenAPI document
        app.register_blueprint(reference.blp)
    serve_docs(app)
    return app


def app_from_env() -> Flask:
    """The app of this process's environment: what gunicorn serves (``services.api:app_from_env()``)."""
    return create_app(Config.from_env())


def _bot_seat(players: PlayerRegistry, token: str | None):
    """The built-in bot's player, registered on first use (no Redis I/O while the app is built)."""
    seated: list[Player] = []

    def bot() -> Player:
        try:
            usable = checked_bot_token(token)
        except WeakBotTokenError:
            usable = None
        if usable is None:
            raise ApiError(503, "BOT_UNAVAILABLE", "This server runs no bot: set BOT_TOKEN for the API and the bot.")
        if not seated:
            seated.append(players.ensure(BOT_PLAYER_ID, BOT_NAME, usable))
        return seated[0]

    return bot
