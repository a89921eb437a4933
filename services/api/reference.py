"""A benchmark-only endpoint: the floor under every command this stack can serve.

``POST /bench/reference/<stream>`` does only what no command can avoid: the same
marshmallow load of an action body (flask-smorest's parser, as ``POST .../actions``), one
atomic append to a Redis stream (one Lua script: next version, XADD, in one round trip),
and an orjson reply. No auth, no rules, no projector job. ``bench/`` measures the real
command path beside it, on the same server and Redis, in the same run.

It is registered only when ``BENCH_REFERENCE=1`` (see ``create_app``), and on the Flask
app rather than the flask-smorest ``Api``, so it never appears in ``/openapi.json``.
The streams it writes use the key shape of a match stream (so the append costs the same)
under ids no match can have, and carry no "unprojected" mark: projectors never see them.
"""
from __future__ import annotations

import os
import time

import orjson
from flask import Response

from shared import keys
from shared.eventstore.lua import Script

from .json_responses import json_response
from .schemas import ActionSchema
from .smorest import ApiBlueprint
from .wiring import services

ENV_FLAG = "BENCH_REFERENCE"
STREAM_PREFIX = "bench-reference-"  # match ids are 12 random characters: never this long prefix

# KEYS[1] the stream; ARGV type, schema version, time (ms), data. Returns the new version.
_APPEND_LUA = """
local version = redis.call('XLEN', KEYS[1]) + 1
redis.call('XADD', KEYS[1], string.format('%d-0', version), 't', ARGV[1], 's', ARGV[2], 'at', ARGV[3], 'd', ARGV[4])
return version
"""
_append = Script(_APPEND_LUA)

blp = ApiBlueprint("bench_reference", __name__, description="Benchmark only: load a body, append it.")


def enabled() -> bool:
    """Whether this process was started to be benchmarked (``BENCH_REFERENCE=1``)."""
    return os.environ.get(ENV_FLAG) == "1"


@blp.route("/bench/reference/<id:stream>", methods=["POST"])
@blp.arguments(ActionSchema)
def reference(action: dict, stream: str) -> Response:
    """Load an action body and append it to a benchmark stream; its new version."""
    key = keys.match_events(f"{STREAM_PREFIX}{stream}"[:64])
    version = _append(services().redis, [key], ["bench_reference", 1, int(time.time() * 1000), orjson.dumps(action)])
    return json_response({"version": int(version)}, 200)
