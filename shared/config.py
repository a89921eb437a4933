"""Configuration from environment variables, read in this one place.

Every entry point (the API, the workers, ``make run``, the command-line tools) builds a
``Config`` with ``Config.from_env()``, so they all agree on where Redis lives.
"""
from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis-cluster://`` or ``rediss-cluster://``)."""
    return url.split("://", 1)[0].endswith("-cluster")


@dataclass(frozen=True)
class LimitSettings:
    """Abuse limits (API.md "Limits"), each its own setting; 0 lifts one, ``RATE_LIMITS=off`` all."""

    enabled: bool = True
    registrations_per_hour: int = 10  # players registered, per client address
    streams_per_client: int = 20  # live streams open at once (match and player streams), per client address
    matches_per_hour: int = 30  # matches created, per player
    waiting_matches: int = 5  # matches created and not yet joined, per player
    actions_per_second: float = 10.0  # actions per player, on average ...
    actions_burst: int = 20  # ... and this many at once
    replays_per_minute: int = 120  # GET /replay, per client address
    event_reads_per_minute: int = 600  # GET /events, per client address (the browser's log reads at each move)
    joins_per_hour: int = 60  # join attempts, per player
    client_joins_per_hour: int = 120  # join attempts, per client address
    max_playing: int = 10  # unfinished matches (waiting or playing) a player sits in at once
    credentials_per_minute: int = 60  # stream tickets and token rotations, per player
    connections_per_client: int = 64  # connections open at once per client address, in each API process
    logins_per_hour: int = 30  # login attempts (POST /sessions), per client address
    name_logins_per_hour: int = 10  # login attempts (POST /sessions), per player name tried

    @classmethod
    def from_env(cls, env: dict[str, str]) -> LimitSettings:
        return cls(
            enabled=env.get("RATE_LIMITS", "on").strip().lower() not in ("off", "0", "false", "no"),
            registrations_per_hour=int(env.get("REGISTRATIONS_PER_HOUR", "10")),
            streams_per_client=int(env.get("STREAMS_PER_CLIENT", "20")),
            matches_per_hour=int(env.get("MATCHES_PER_HOUR", "30")),
            waiting_matches=int(env.get("WAITING_MATCHES", "5")),
            actions_per_second=float(env.get("ACTIONS_PER_SECOND", "10")),
            actions_burst=int(env.get("ACTIONS_BURST", "20")),
            replays_per_minute=int(env.get("REPLAYS_PER_MINUTE", "120")),
            event_reads_per_minute=int(env.get("EVENT_READS_PER_MINUTE", "600")),
            joins_per_hour=int(env.get("JOINS_PER_HOUR", "60")),
            client_joins_per_hour=int(env.get("CLIENT_JOINS_PER_HOUR", "120")),
            max_playing=int(env.get("MAX_PLAYING", "10")),
            credentials_per_minute=int(env.get("CREDENTIALS_PER_MINUTE", "60")),
            connections_per_client=int(env.get("CONNECTIONS_PER_CLIENT", "64")),
            logins_per_hour=int(env.get("LOGINS_PER_HOUR", "30")),
            name_logins_per_hour=int(env.get("NAME_LOGINS_PER_HOUR", "10")),
        )


def trusted_proxies(setting: str) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES``: comma-separated IPs or CIDRs (a bad entry stops the start, loudly)."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in setting.split(",") if entry.strip())


def acknowledgement(env: dict[str, str]) -> dict[str, str | int]:
    """``APPEND_ACK``: ``master`` (an append answers once the master has it) or ``replica`` (once a
    replica has it too, within ``APPEND_ACK_TIMEOUT_MS``); anything else stops the start, loudly."""
    value = env.get("APPEND_ACK", "").strip().lower() or "master"
    if value not in ("master", "replica"):
        raise ValueError(f"APPEND_ACK must be 'master' or 'replica', not {env['APPEND_ACK']!r}")
    return {"append_ack": value, "append_ack_timeout_ms": int(env.get("APPEND_ACK_TIMEOUT_MS", "500"))}


@dataclass(frozen=True)
class Config:
    redis_url: str  # the event store and read models
    queue_url: str  # RQ's Redis; may differ (RQ cannot run on a Redis Cluster)
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2  # projector workers started by `make run`
    data_dir: Path = Path("var")
    embedded_redis: bool = True  # no REDIS_URL given: `make run` starts redis-server itself
    queue_name: str = "projector"
    catch_up_lanes: int = 0  # catch-up lanes (workers draining at once); 0: as many as live workers
    catch_up_linger_ms: float = 5.0  # a drain waits this long first, batching the appends meanwhile
    catch_up_busy_linger_ms: float = 50.0  # ... and this long between batches of matches that each moved twice or more
    sweep_seconds: int = 30  # how often a worker looks for matches whose job was lost
    api_workers: int = 2  # gunicorn processes of the API
    api_threads: int = 8  # sizes nothing now: the API's gevent worker has no thread pool
    access_log: bool = False  # gunicorn's access log on stdout (off: formatting it costs ~4 % of a request)
    max_streams: int = 10_000  # live streams one API process holds open at once (past it: 503 STREAMS_BUSY)
    worker_connections: int = 12_000  # client connections one API process serves at once (gevent)
    stalled_client_seconds: float = 30.0  # a client socket making no progress this long is closed
    request_deadline_seconds: float = 30.0  # a request's head and body arrive within this, or 408 and closed
    send_buffer_bytes: int = 0  # a fixed send buffer per client connection; 0: the kernel's autotuning
    redis_connections: int = 32  # the shared Redis pool's bound per API process: requests wait for one
    keep_alive_seconds: float = 15.0  # a stream's keep-alive comment this often (a gone client is noticed)
    max_waits: int = 256  # reads one API process lets wait for a version at once (`wait=`); others answer at once
    waits_per_client: int = 4  # ... of which one client address may hold this many (at most half)
    bot_token: str | None = None  # the built-in bot's secret: the API seats it, the bot plays with it
    lobby_seconds: int = 3600  # R32: a match nobody joined within this long after its creation is cancelled
    archive_after: int = 3600  # a match finished this many seconds ago leaves Redis for the archive
    archivers: int = 1  # archiver workers started by `make run`
    name_reserve_days: float = 30.0  # a name given up by a rename stays reserved for its old holder this long
    erase_in_match: str = "resign"  # DELETE /players/me of a seated player: "resign" its matches, or "refuse" (409)
    seek_seconds: int = 120  # an open seek nobody was paired with lapses this long after it was opened
    rematch_seconds: int = 60  # a rematch offer lapses this long after it was made
    limits: LimitSettings = field(default_factory=LimitSettings)
    trusted_proxies: tuple[Network, ...] = ()  # peers whose X-Forwarded-For names the client address
    append_ack: str = "master"  # "replica": an append answers once a replica has it too (WAIT)
    append_ack_timeout_ms: int = 500  # ... or, past this, 503 NOT_DURABLE
    metrics: bool = True  # METRICS=off: nothing recorded, no /metrics, no metrics port (the bench's baseline)
    metrics_port: int = 9101  # a projector worker's or timer's own metrics port (or the next free one); 0: none
    metrics_dir: Path | None = None  # gunicorn's shared metric files (PROMETHEUS_MULTIPROC_DIR; DATA_DIR/metrics-PORT)
    log_format: str = "text"  # LOG_FORMAT: text (for people) or json (one object per line)
    log_level: str = "INFO"
    archive_url: str = ""  # ARCHIVE_URL: where finished matches go; "" or "file:": DATA_DIR/archive
    archive_s3_endpoint: str | None = None  # ARCHIVE_S3_ENDPOINT: an S3-compatible server's address (MinIO)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        env = dict(os.environ if env is None else env)
        data_dir = Path(env.get("DATA_DIR", "var")).resolve()
        # The embedded Redis listens on a unix socket inside DATA_DIR: a second `make run`
        # with another DATA_DIR never collides with the first.
        redis_url = env.get("REDIS_URL") or f"unix://{data_dir / 'redis.sock'}"
        api_threads = int(env.get("API_THREADS", "8"))
        workers = int(env.get("WORKERS", "2"))
        queue_url = env.get("QUEUE_URL") or redis_url
        max_streams = int(env.get("MAX_STREAMS", "10000"))
        if is_cluster_url(queue_url):
            raise ValueError("RQ cannot run on a Redis Cluster: set QUEUE_URL to one Redis server "
                             "(REDIS_URL may name the cluster)")
        return cls(
            redis_url=redis_url,
            queue_url=queue_url,
            host=env.get("HOST", "127.0.0.1"),
            port=int(env.get("PORT", "8000")),
            workers=workers,
            data_dir=data_dir,
            embedded_redis=not env.get("REDIS_URL"),
            sweep_seconds=int(env.get("SWEEP_SECONDS", "30")),
            catch_up_lanes=int(env.get("CATCH_UP_LANES") or 0),
            catch_up_linger_ms=float(env.get("CATCH_UP_LINGER_MS", "5")),
            catch_up_busy_linger_ms=float(env.get("CATCH_UP_BUSY_LINGER_MS", "50")),
            api_workers=int(env.get("API_WORKERS", "2")),
            api_threads=api_threads,
            access_log=bool(env.get("ACCESS_LOG")),
            max_streams=max_streams,
            worker_connections=int(env.get("WORKER_CONNECTIONS") or max_streams + 2000),
            redis_connections=int(env.get("REDIS_CONNECTIONS", "32")),
            keep_alive_seconds=float(env.get("KEEP_ALIVE_SECONDS", "15")),
            **_waits(env),
            bot_token=env.get("BOT_TOKEN") or None,
            lobby_seconds=int(env.get("LOBBY_SECONDS", "3600")), **_archiving(env), **_matchmaking(env),
            **_players(env),
            limits=LimitSettings.from_env(env),
            trusted_proxies=trusted_proxies(env.get("TRUSTED_PROXIES", "")), **_observability(env, data_dir),
            **acknowledgement(env), **_client_sockets(env), **archive_settings(env),
        )


def _matchmaking(env: dict[str, str]) -> dict[str, int]:
    """SEEK_SECONDS and REMATCH_SECONDS: how long a seek and a rematch offer stay open."""
    return {"seek_seconds": int(env.get("SEEK_SECONDS", "120")),
            "rematch_seconds": int(env.get("REMATCH_SECONDS", "60"))}


ARCHIVE_SCHEMES = ("file:", "s3://")


def archive_settings(env: dict[str, str]) -> dict[str, str | None]:
    """ARCHIVE_URL (``file:[DIR]`` or ``s3://bucket/prefix``) and ARCHIVE_S3_ENDPOINT; other schemes stop the start."""
    url = env.get("ARCHIVE_URL", "").strip()
    if url and not url.startswith(ARCHIVE_SCHEMES):
        raise ValueError(f"ARCHIVE_URL must be file:[DIR] or s3://bucket[/prefix], not {url!r}")
    return {"archive_url": url, "archive_s3_endpoint": env.get("ARCHIVE_S3_ENDPOINT", "").strip() or None}


def _archiving(env: dict[str, str]) -> dict:
    """ARCHIVE_AFTER (seconds after its end a finished match leaves Redis) and ARCHIVERS (`make run`'s workers)."""
    return {"archive_after": int(env.get("ARCHIVE_AFTER") or 3600), "archivers": int(env.get("ARCHIVERS") or 1)}


ERASE_IN_MATCH = ("resign", "refuse")


def _players(env: dict[str, str]) -> dict:
    """NAME_RESERVE_DAYS (how long a renamed player's old name is kept from others) and ERASE_IN_MATCH."""
    erase = (env.get("ERASE_IN_MATCH") or "resign").strip()
    if erase not in ERASE_IN_MATCH:
        raise ValueError(f"ERASE_IN_MATCH must be resign or refuse, not {erase!r}")
    days = float(env.get("NAME_RESERVE_DAYS") or 30)
    if days < 0:
        raise ValueError(f"NAME_RESERVE_DAYS must be 0 or more, not {days!r}")
    return {"name_reserve_days": days, "erase_in_match": erase}


def _client_sockets(env: dict[str, str]) -> dict:
    """STALLED_CLIENT_SECONDS, REQUEST_DEADLINE_SECONDS and SEND_BUFFER_BYTES: what one API client's socket holds."""
    return {"stalled_client_seconds": float(env.get("STALLED_CLIENT_SECONDS") or 30),
            "request_deadline_seconds": float(env.get("REQUEST_DEADLINE_SECONDS") or "30"),  # "0": none
            "send_buffer_bytes": int(env.get("SEND_BUFFER_BYTES") or 0)}


def _waits(env: dict[str, str]) -> dict:
    """MAX_WAITS and WAITS_PER_CLIENT: one client address never holds every wait (a bad pair stops the start)."""
    max_waits, per_client = int(env.get("MAX_WAITS") or 256), int(env.get("WAITS_PER_CLIENT") or 4)
    if max_waits > 1 and per_client > max_waits // 2:
        raise ValueError(f"WAITS_PER_CLIENT ({per_client}) must be at most half of MAX_WAITS ({max_waits}): "
                         "one client address would hold every wait")
    return {"max_waits": max_waits, "waits_per_client": per_client}


def _observability(env: dict[str, str], data_dir: Path) -> dict:
    """METRICS, METRICS_PORT, PROMETHEUS_MULTIPROC_DIR, LOG_FORMAT and LOG_LEVEL."""
    log_format = env.get("LOG_FORMAT", "text").strip().lower()
    if log_format not in ("text", "json"):
        raise ValueError("LOG_FORMAT is text or json")
    return {
        "metrics": env.get("METRICS", "on").strip().lower() not in ("off", "0", "false", "no"),
        "metrics_port": int(env.get("METRICS_PORT", "9101")),
        # One directory per API (its PORT): a second API on the same DATA_DIR empties only its own.
        "metrics_dir": Path(env.get("PROMETHEUS_MULTIPROC_DIR") or data_dir / f"metrics-{env.get('PORT', '8000')}"),
        "log_format": log_format,
        "log_level": env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO",
    }
