"""Text log lines escape everything they quote: a record is one line, whatever a client sent.

The real gunicorn access line is checked in tests/reliability/test_log_injection.py.
"""
from __future__ import annotations

import logging
import sys

import orjson
from hypothesis import given
from hypothesis import strategies as st

from shared.observability import logs

FORGED = "/x\r\n12:00:00 ERROR app forged level=ERROR"


def _record(msg: str = "request", **fields: object) -> logging.LogRecord:
    return logging.makeLogRecord({"msg": msg, "levelno": 20, "levelname": "INFO", "name": "t", **fields})


def test_a_field_with_a_line_break_and_a_fake_field_stays_one_quoted_value():
    line = logs.TextFormatter().format(_record(path=FORGED, status=404))
    assert line.count("\n") == 0 and "\r" not in line
    assert line.endswith(' t request path="/x\\r\\n12:00:00 ERROR app forged level=ERROR" status=404')


def test_controls_separators_bidi_and_backslashes_are_written_as_escapes():
    line = logs.TextFormatter().format(_record(name_field="a\x1b[31m\u202eb\u2028c\x85d\\ne\u200bf\ttab"))
    assert line.endswith(' name_field=a\\x1b[31m\\u202eb\\u2028c\\x85d\\\\ne\\u200bf\\ttab')  # no space left: unquoted


def test_a_quote_inside_a_value_is_escaped_and_an_empty_value_is_quoted():
    line = logs.TextFormatter().format(_record(agent='say "hi"', empty=""))
    assert 'agent="say \\"hi\\""' in line and 'empty=""' in line


def test_a_message_holding_a_line_break_or_a_field_is_quoted_on_its_line():
    line = logs.TextFormatter().format(_record("no match 'a\nb' level=ERROR"))
    assert line.endswith(" INFO t \"no match 'a\\nb' level=ERROR\"")
    assert logs.TextFormatter().format(_record("api started")).endswith(" INFO t api started")  # words stay words


def test_a_traceback_follows_its_record_indented():
    try:
        raise ValueError("bad\n12:00:00 ERROR app forged")
    except ValueError:
        line = logs.TextFormatter().format(_record("boom", exc_info=sys.exc_info()))
    first, *trace = line.split("\n")
    assert first.endswith(" INFO t boom") and trace and all(part.startswith("    ") for part in trace)


@given(st.text(), st.text())
def test_any_message_and_value_make_one_line(message, value):
    line = logs.TextFormatter().format(_record(message.replace("%", "%%"), value=value))
    assert len(line.splitlines()) == 1 and not any(char in line for char in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028")


@given(st.text().filter(lambda text: text != "-"))  # "-" is gunicorn's "none", left out of every line
def test_a_json_line_is_one_line_and_keeps_the_value_as_it_was(value):
    line = logs.JsonFormatter("api").format(_record(path=value))
    assert len(line.splitlines()) == 1 and orjson.loads(line)["path"] == value


def test_a_json_line_escapes_what_orjson_leaves_raw_separators_c1_and_bidi():
    line = logs.JsonFormatter("api").format(_record(path="a\u2028b\x85c\u202ed\U000e0041"))
    assert line.isascii() and "\\u2028" in line and "\\u202e" in line and "\\udb40\\udc41" in line
    assert orjson.loads(line)["path"] == "a\u2028b\x85c\u202ed\U000e0041"


def test_every_control_format_and_separator_character_is_escaped() -> None:
    import unicodedata

    from shared.observability import logs as log_setup
    unsafe = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")]
    assert [f"U+{ord(c):04X}" for c in unsafe if not log_setup._UNSAFE.match(c)] == []
    assert [f"U+{ord(c):04X}" for c in unsafe if ord(c) >= 0x7F and not log_setup._JSON_UNSAFE.match(c)] == []
