"""Log lines: one JSON object per line (``LOG_FORMAT=json``) or a line for people (``text``).

Every process (the API and its gunicorn master, the timer, the projector workers, the bot,
the CLI) calls :func:`setup` once, or, under gunicorn, loads :func:`gunicorn_dict`. Each line
carries the ids bound in :mod:`.log_context` (``request_id``, ``match_id``, ``player_id``) and
the fields a call passes in ``extra``. Secrets never reach a line: a field whose name says
token, seed, secret, password, cookie or authorization is dropped, and a bearer token or a
``token=``, ``ticket=`` or ``invite=`` in a message or a traceback is masked.

A line holds what clients sent (a request's path, a name), so a text line escapes every
part of itself (:func:`escaped`): a ``%0a`` in a path cannot start a forged line, nor a
bidi control reorder one, and a value holding a space or an ``=`` is quoted, so that
``level=ERROR`` inside a path stays inside ``path="..."``. One record is one line: a
traceback's lines follow it indented, so only a record's own line starts at the margin.
JSON lines need less: orjson escapes the C0 controls, ``"`` and ``\\``, but writes DEL, the
C1 controls, the line separators (U+0085, U+2028, which many readers take for a line's end)
and the bidi and invisible format characters as they are; a JSON line writes those as
``\\uNNNN`` too (the same string once parsed).
"""
from __future__ import annotations

import logging
import re
import sys
import time
from typing import Any

import orjson

from .log_context import current

_SECRET_NAME = re.compile(r"token|seed|secret|password|cookie|authorization", re.IGNORECASE)
_SECRET_TEXT = re.compile(r"(?i)(authorization:\s*(?:bearer\s+)?|bearer\s+|token=|ticket=|invite=|seed=)[^\s&'\",]+")
_MASK = r"\1[redacted]"
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}
# What a reader could take for the line's structure: controls (C0, DEL, C1), line and paragraph
# separators, the bidi controls and every invisible format character (Unicode's Cc, Cf, Zl and
# Zp: a test checks the table against unicodedata), and the backslash itself.
_INVISIBLE = ("\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
              "\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
              "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f")
_UNSAFE = re.compile(f"[\\\\\x00-\x1f{_INVISIBLE}]")
_JSON_UNSAFE = re.compile(f"[{_INVISIBLE}]")  # _UNSAFE less what orjson escapes
_SHORT = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_QUOTES = re.compile(r'[\s="]|^$')  # a value; a message reads as words, quoted if it holds "=" or '"'
_MESSAGE_NEEDS_QUOTES = re.compile(r'[="]')
_ACCESS_FIELDS = {"m": "method", "U": "path", "s": "status", "B": "bytes", "L": "duration_s",
                  "{x-request-id}o": "request_id"}


def scrub(text: str) -> str:
    """``text`` with bearer tokens and ``token=`` / ``ticket=`` / ``invite=`` / ``seed=`` values masked."""
    return _SECRET_TEXT.sub(_MASK, text)


def escaped(text: object) -> str:
    """``text`` on one line with nothing a reader could mistake for structure: each control,
    separator, bidi or invisible format character written as ``\\n``, ``\\xNN`` or ``\\uNNNN``."""
    return _UNSAFE.sub(_escape_one, str(text))


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    """One character as JSON's ``\\uNNNN`` (a surrogate pair above the BMP)."""
    encoded = match.group().encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(encoded[at:at + 2], 'big'):04x}" for at in range(0, len(encoded), 2))


def _field(key: str, value: object) -> str:
    """``key=value``, the value quoted when it holds a space, ``=`` or ``"``, or is empty."""
    return f"{escaped(key)}={_quoted(escaped(value), _NEEDS_QUOTES)}"


def _quoted(text: str, needs: re.Pattern[str]) -> str:
    """``text`` in double quotes (``"`` escaped) if ``needs`` finds anything in it, else as it is."""
    return '"' + text.replace('"', '\\"') + '"' if needs.search(text) else text


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """What a line says about ``record``: the bound ids, its ``extra``, gunicorn's access atoms."""
    fields = dict(current())
    fields.update((k, v) for k, v in vars(record).items() if k not in _STANDARD)
    if record.name == "gunicorn.access" and isinstance(record.args, dict):
        fields.update((name, record.args.get(atom)) for atom, name in _ACCESS_FIELDS.items())
    return {k: v for k, v in fields.items() if not _SECRET_NAME.search(k) and v not in (None, "-")}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ts, level, logger, msg, service, the ids, the fields, exc."""

    def __init__(self, service: str = "") -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": _timestamp(record.created), "level": record.levelname.lower(), "logger": record.name,
            "msg": scrub(_message(record)),
        }
        if self.service:
            line["service"] = self.service
        line.update(fields_of(record))
        if record.exc_info:
            line["exc"] = scrub(self.formatException(record.exc_info))
        return _JSON_UNSAFE.sub(_json_escape, orjson.dumps(line, default=str).decode())


class TextFormatter(logging.Formatter):
    """``time level logger message key=value ...``: for people at a terminal."""

    def __init__(self) -> None:  # no service: that is JSON's field; a terminal knows its own
        super().__init__(datefmt="%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        record.message = scrub(_message(record))
        head = [self.formatTime(record, self.datefmt), escaped(record.levelname), escaped(record.name),
                _quoted(escaped(record.message), _MESSAGE_NEEDS_QUOTES)]
        line = " ".join([*head, *(_field(key, value) for key, value in fields_of(record).items())])
        if record.exc_info:  # indented: only a record's own line starts at the margin
            trace = scrub(self.formatException(record.exc_info))
            line += "".join(f"\n    {escaped(part)}" for part in trace.splitlines())
        return line


def formatter(log_format: str, service: str = "") -> logging.Formatter:
    """The formatter ``LOG_FORMAT`` names (``json``; anything else: text)."""
    return JsonFormatter(service) if log_format == "json" else TextFormatter()


def setup(log_format: str, level: str = "INFO", service: str = "", stream: Any = None) -> logging.Handler:
    """Send every logger's lines through one handler, formatted as ``log_format``; the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(formatter(log_format, service))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler


def gunicorn_dict(log_format: str, level: str = "INFO", service: str = "api", access: bool = False) -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: its error and access logs and the app's, formatted alike
    (the access log only if ``access``: a line per request is a cost every request pays)."""
    handler = {"class": "logging.StreamHandler", "formatter": "truc"}
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"truc": {"()": formatter, "log_format": log_format, "service": service}},
        "handlers": {"stderr": {**handler, "stream": "ext://sys.stderr"},
                     "stdout": {**handler, "stream": "ext://sys.stdout"}},
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "INFO" if access else "WARNING", "handlers": ["stdout"], "propagate": False},
        },
    }


def _message(record: logging.LogRecord) -> str:
    if record.name == "gunicorn.access" and isinstance(record.args, dict):
        return "request"  # the atoms are fields; the line's own format is for text logs
    return record.getMessage()


def _timestamp(created: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{int(created % 1 * 1000):03d}Z"
