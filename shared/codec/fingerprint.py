"""The stored shape of each event type in plain words: its fields' names, types and defaults.

The codec derives every event's stored shape from the event's dataclass fields, so a
field renamed, retyped, removed or added changes what is written without anyone writing
a schema. The fingerprint makes that change visible: ``tests/golden/fingerprints.json``
keeps the fingerprint of every (event type, schema version) ever written, and a test
compares today's with the one recorded for today's version (:func:`drift`).
"""
from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from enum import Enum
from typing import Any

from shared.rules import Event

Fingerprint = dict[str, dict[str, Any]]  # field name -> {"type", "required", "default"?, "fields"?}
RECORD_COMMAND = "python -m tests.golden.fingerprints"
_STEPS_MODULE = "shared/codec/event_versions.py"


def fingerprint(kind: type) -> Fingerprint:
    """The fields of an event type (or of a dataclass stored inside one, such as the rules)."""
    hints = typing.get_type_hints(kind)
    described = {}
    for f in fields(kind):
        hint = hints[f.name]
        one: dict[str, Any] = {"type": _type_name(hint), "required": f.default is MISSING}
        if f.default is not MISSING:
            one["default"] = _plain(f.default)
        if is_dataclass(hint):
            one["fields"] = fingerprint(hint)  # stored as an object of its own fields
        described[f.name] = one
    return described


def fingerprints(kinds: Mapping[str, type[Event]], versions: Mapping[str, int]) -> dict[str, dict[str, Fingerprint]]:
    """Every event type's fingerprint, keyed by type and then by its current version (as JSON keys)."""
    return {name: {str(versions[name]): fingerprint(kind)} for name, kind in sorted(kinds.items())}


def drift(recorded: Mapping[str, Mapping[str, Fingerprint]], kinds: Mapping[str, type[Event]],
          versions: Mapping[str, int]) -> list[str]:
    """What to do about each event type whose fields are not the ones recorded for its version."""
    problems = []
    for name, kind in sorted(kinds.items()):
        version, now = versions[name], fingerprint(kind)
        known = recorded.get(name, {})
        if str(version) not in known:
            problems.append(f"{name} version {version} has no recorded fingerprint: run `{RECORD_COMMAND}` "
                            f"to record its fields (new versions only; recorded ones are never changed)")
        elif known[str(version)] != now:
            problems.append(
                f"{name}'s fields changed ({_difference(known[str(version)], now)}) but its schema version is "
                f"still {version}: add schema version {version + 1} for {name} and an upcaster from {version} "
                f"(a step in {_STEPS_MODULE} turning version {version}'s data into the new fields), then run "
                f"`{RECORD_COMMAND}` to record the fingerprint")
        later = sorted(int(v) for v in known if int(v) > version)
        if later:
            problems.append(f"{name} has recorded versions {later} beyond its current {version}: "
                            f"a step was removed from {_STEPS_MODULE}, and streams of those versions exist")
    for name in sorted(set(recorded) - set(kinds)):
        problems.append(f"{name} is recorded but no longer an event type: old streams still hold it")
    return problems


def _difference(before: Fingerprint, after: Fingerprint) -> str:
    gone = sorted(set(before) - set(after))
    new = sorted(set(after) - set(before))
    changed = sorted(name for name in set(before) & set(after) if before[name] != after[name])
    said = [f"{label} {', '.join(names)}" for label, names in (("gone:", gone), ("new:", new), ("changed:", changed))
            if names]
    return "; ".join(said)


def _type_name(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) and not typing.get_args(hint) else str(hint)


def _plain(value: Any) -> Any:
    """A default as JSON holds it."""
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value
