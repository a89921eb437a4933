"""Every Redis key of the project is built in this package, and nowhere else: ``truc:{<tag>}:<what>``.

Callers import the package (``from shared import keys``; ``keys.match_events(match_id)``); each
family of keys is a module of its own, by who writes it and what it means:

- :mod:`.namespace`: the ``truc:`` prefix, the match's and the player's hash tags, ids read back;
- :mod:`.event_store`: a match's stream, its append tokens and refusals, its seed (the command side);
- :mod:`.backlog`: the projector's backlog: unprojected marks and their index, catch-up asks, lanes;
- :mod:`.access`: players, claimed names, tokens and tickets, abuse limits' units;
- :mod:`.read_models`: views, lobby, scoreboard, feeds, each by generation;
- :mod:`.rating_keys`: the ratings read model's results, history and leaderboard, by generation;
- :mod:`.archived`: what an archived match leaves in Redis.

tests/unit/test_architecture.py fails on a ``truc:`` key written anywhere else.
"""
from __future__ import annotations

from shared.keys.access import (  # noqa: F401
    ERASED_PLAYERS,
    LOOKALIKES_CLAIMED,
    NAME_CLAIMS_PATTERN,
    PLAYERS_RENAMED,
    TOKENS_REVOKED,
    limit,
    player,
    player_given_up,
    player_name,
    player_seen,
    player_sessions,
    player_token,
    stream_ticket,
)
from shared.keys.archived import ARCHIVE_DUE, ARCHIVE_TOTALS, MATCH_ARCHIVED_PATTERN, match_archived  # noqa: F401
from shared.keys.backlog import (  # noqa: F401
    MATCH_UNPROJECTED_PATTERN,
    UNPROJECTED_INDEX,
    lane_armed,
    lane_pending,
    lane_wake,
    match_catch_up,
    match_unprojected,
    unprojected_index,
    unprojected_indexes,
)
from shared.keys.event_store import (  # noqa: F401
    MATCH_EVENTS_PATTERN,
    MATCHES_APPENDED,
    match_events,
    match_rechained,
    match_refusals,
    match_rewriting,
    match_seed,
    match_tokens,
)
from shared.keys.namespace import (  # noqa: F401
    ID_PATTERN,
    PREFIX,
    InvalidMatchIdError,
    match_id_from_key,
    player_id_from_key,
    validate_match_id,
)
from shared.keys.rating_keys import (  # noqa: F401
    leaderboard,
    leaderboard_fence,
    player_ratings,
    player_ratings_cold,
    player_ratings_cold_pattern,
    player_ratings_fence,
    player_ratings_fence_pattern,
    player_ratings_pattern,
    rated_results,
    ratings_chills,
    ratings_fences,
    ratings_global_keys,
    ratings_lock,
    ratings_pending,
)
from shared.keys.read_models import (  # noqa: F401
    CLOCKS,
    LOBBY_STATUSES,
    PARKED,
    PLAYERS_TOLD,
    READ_MODELS,
    SCOREBOARD,
    SCOREBOARD_MATCHES,
    VIEWS_CHANGED,
    InvalidGenerationError,
    InvalidLobbyStatusError,
    cold_list,
    cold_list_days,
    generation_global_keys,
    lobby,
    match_views,
    match_views_pattern,
    player_feed,
    player_matches,
    player_matches_pattern,
    player_results,
    player_results_pattern,
    player_totals,
    player_totals_pattern,
    scoreboard,
    scoreboard_archived,
    scoreboard_matches,
    validate_generation,
)
