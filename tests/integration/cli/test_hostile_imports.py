"""`truc import` of a file written to attack: refused in one sentence, nothing written, never a traceback.

Every hostile export here has its hash chain recomputed, as an attacker would: the chain
proves nothing about a file, so the import must refuse on what the file says.
"""
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.cli import truc
from shared import keys
from shared.codec import encode
from shared.eventstore import InMemoryEventStore
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import encode_data
from shared.eventstore.schema import event_to_json, ms_from_iso
from shared.readmodels import ReadModels
from shared.rules.chance import SeededChance
from shared.rules.playthrough import play_random_match

MATCH = "imported1"
HOSTILE_NAME = "<img src=x onerror=alert(1)>\u202eBot"


def honest_lines(match_id: str = MATCH) -> list[Any]:
    """An honest finished match as exported: the header, then each event (match_created naming ``match_id``)."""
    _, events = play_random_match(random.Random(5), chance=SeededChance(f"{5:064x}"))
    store = InMemoryEventStore()
    store.append(match_id, [encode(e) for e in events], 0)
    lines: list[Any] = [event_to_json(e) for e in store.read(match_id)]
    lines[0]["data"]["match_id"] = match_id
    return [{"format": "truc-match/1", "match_id": match_id, "events": len(lines), "seed": None}, *lines]


def rechained(lines: list[Any]) -> list[Any]:
    """What a careful forger does: every link recomputed for the header's match id."""
    header = lines[0]
    if not isinstance(header, dict) or not isinstance(header.get("match_id"), str):
        return lines
    previous = genesis_hash(header["match_id"])
    for event in lines[1:]:
        try:
            link = chain_hash(previous, event["version"], event["type"], event["schema_version"],
                              ms_from_iso(event["at"]), encode_data(event["data"]))
        except (KeyError, TypeError, ValueError):
            continue
        event["hash"] = previous = link
    return lines


def import_lines(env: dict[str, str], tmp_path, lines: list[Any] | bytes):
    path = tmp_path / "match.jsonl"
    text = lines if isinstance(lines, bytes) else "\n".join(json.dumps(line) for line in lines).encode()
    path.write_bytes(text)
    return CliRunner().invoke(truc, ["import", str(path)], env=env, catch_exceptions=False)


def refused(result, code: str | None = None) -> bool:
    """One line, starting "refused:", ending with the code if one is given, and a non-zero exit."""
    lines = result.output.strip().splitlines()
    return (result.exit_code != 0 and len(lines) == 1 and lines[0].startswith("refused: ")
            and (code is None or lines[0].endswith(f"({code})")))


@pytest.fixture
def env(redis_server, redis_client):
    return {"REDIS_URL": redis_server.url}


def test_an_honest_export_is_imported(env, redis_client, tmp_path):
    result = import_lines(env, tmp_path, rechained(honest_lines()))
    assert result.exit_code == 0, result.output
    assert ReadModels(redis_client).summary(MATCH)["status"] == "finished"


def _set(path: tuple, value: Any):
    def change(lines: list[Any]) -> list[Any]:
        target = lines
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        return lines
    return change


def _joined(lines: list[Any]) -> int:
    return next(i for i, line in enumerate(lines) if isinstance(line, dict) and line.get("type") == "player_joined")


HOSTILE = {
    "match id with key syntax": (_set((0, "match_id"), "x}y:z"), "BAD_MATCH_ID"),
    "match id a number": (_set((0, "match_id"), 123), "BAD_MATCH_ID"),
    "match id empty": (_set((0, "match_id"), ""), "BAD_MATCH_ID"),
    "match id missing": (lambda lines: [{k: v for k, v in lines[0].items() if k != "match_id"}, *lines[1:]],
                         "BAD_MATCH_ID"),
    "created for another match": (_set((1, "data", "match_id"), "someone-else"), "MATCH_ID_MISMATCH"),
    "creator id with key syntax": (_set((1, "data", "creator_id"), "bad:id}"), "BAD_PLAYER_ID"),
    "creator name with markup and a bidi override": (_set((1, "data", "creator_name"), HOSTILE_NAME),
                                                    "BAD_PLAYER_NAME"),
    "creator name with an escape": (_set((1, "data", "creator_name"), "\x1b]0;pwned\x07al"), "BAD_PLAYER_NAME"),
    "creator name too long": (_set((1, "data", "creator_name"), "a" * 33), "BAD_PLAYER_NAME"),
    "creator name with a newline": (_set((1, "data", "creator_name"), "alice\n"), "BAD_PLAYER_NAME"),
    "joiner id with key syntax": (lambda lines: _set((_joined(lines), "data", "player_id"), "bad:id}")(lines),
                                  "BAD_PLAYER_ID"),
    "joiner id a number": (lambda lines: _set((_joined(lines), "data", "player_id"), 7)(lines), "BAD_PLAYER_ID"),
    "joiner name missing": (lambda lines: _set((_joined(lines), "data", "player_name"), None)(lines),
                            "BAD_PLAYER_NAME"),
    "not an export": (_set((0, "format"), "something/2"), "NOT_AN_EXPORT"),
    "header a list": (lambda lines: [[1, 2], *lines[1:]], "NOT_AN_OBJECT"),
    "event a string": (_set((3,), "card_played"), "NOT_AN_OBJECT"),
    "events miscounted": (_set((0, "events"), 2), "WRONG_COUNT"),
    "events count a string": (_set((0, "events"), "all"), "BAD_HEADER"),
    "seed a number": (_set((0, "seed"), 12), "BAD_HEADER"),
    "version a huge number": (_set((2, "version"), 10**30), "BAD_EVENT"),
    "version past 64 bits": (_set((2, "version"), 2**64 + 1), "BAD_EVENT"),
    "version a string": (_set((2, "version"), "2"), "BAD_EVENT"),
    "time not a time": (_set((2, "at"), "yesterday"), "BAD_EVENT"),
    "data missing": (lambda lines: _set((2,), {k: v for k, v in lines[2].items() if k != "data"})(lines),
                     "BAD_EVENT"),
    "header only": (lambda lines: [{**lines[0], "events": 0}], "NO_EVENTS"),
}


@pytest.mark.parametrize("change, code", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_export_is_refused_in_one_sentence_and_writes_nothing(env, redis_client, tmp_path, change, code):
    result = import_lines(env, tmp_path, rechained(change(honest_lines())))

    assert refused(result, code) and result.exit_code == 2, result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert redis_client.keys("*") == []


@pytest.mark.parametrize("raw, code", [
    (b"", "EMPTY_EXPORT"), (b"{not json", "NOT_JSON"), (b"\xff\xfe", "NOT_JSON"), (b"[" * 5000, "NOT_JSON"),
    (b"1e400", "NOT_JSON"), (b"null", "NOT_AN_OBJECT"),
])
def test_garbage_is_refused_in_one_sentence(env, redis_client, tmp_path, raw, code):
    result = import_lines(env, tmp_path, raw)
    assert refused(result, code) and result.exit_code == 2, result.output
    assert redis_client.keys("*") == []


def test_what_a_refused_audit_quotes_of_the_file_is_printable(env, redis_client, tmp_path):
    lines = honest_lines()
    lines[3]["type"] = "\x1b[2J\u202e[bold]card_played"

    result = import_lines(env, tmp_path, rechained(lines))

    assert refused(result) and result.exit_code == 1 and "v3 rules" in result.output, result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output and redis_client.keys("*") == []


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _mutations(draw: st.DrawFn) -> list[Any]:
    """An honest export with a few values (header, envelope or data) replaced by any JSON."""
    lines = honest_lines()
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        targets = [line for line in (lines[index], lines[index].get("data")) if isinstance(line, dict)]
        target = draw(st.sampled_from(targets))
        key = draw(st.sampled_from(sorted(target)) if target and draw(st.booleans()) else st.text(max_size=6))
        target[key] = draw(_JSON)
    return rechained(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=_mutations())
def test_any_mutated_export_is_imported_or_refused_never_a_traceback(env, redis_client, tmp_path, lines):
    redis_client.flushall()
    result = import_lines(env, tmp_path, lines)
    assert result.exit_code == 0 or refused(result), result.output
    if result.exit_code:
        assert redis_client.exists(keys.match_events(MATCH)) == 0


@pytest.mark.parametrize("command", ["export", "replay", "audit"])
def test_a_match_id_that_could_not_be_a_key_is_a_usage_error(env, command):
    result = CliRunner().invoke(truc, [command, "x}y:\x1b[2J"], env=env, catch_exceptions=False)
    assert result.exit_code == 2 and "is not a match id" in result.output and "\x1b" not in result.output
