"""A request cannot write log lines of its own: with ``ACCESS_LOG=1`` and text logs, a ``%0d%0a``
in the path once started a forged line (``12:00:00 ERROR forged level=ERROR``) in gunicorn's
access log (issue 29, item 6). One request is one line, its path escaped and quoted."""
from __future__ import annotations

from tests.waiting import wait_until

FORGED = "12:00:00 ERROR app forged level=ERROR"


def test_a_path_carrying_a_line_break_writes_one_access_line_with_the_break_escaped(start_stack):
    stack = start_stack(workers=0, env={"ACCESS_LOG": "1", "LOG_FORMAT": "text"})
    path = "/nowhere%0d%0a" + FORGED.replace(" ", "%20") + "%1b[31m%e2%80%ae"
    reply = stack.http.get(path, headers={"X-Request-ID": "forge-1"})
    assert reply.status == 404
    wait_until(lambda: "request_id=forge-1" in stack.log("api"), 10, "the request's access line")
    lines = [line for line in stack.log("api").splitlines() if "forged" in line]
    assert len(lines) == 1, lines  # the request's own line, and no other
    line = lines[0]
    assert "gunicorn.access request method=GET" in line and "status=404" in line and "request_id=forge-1" in line
    # WSGI hands the path over as latin-1: the RLO's three bytes, the middle one a C1 control, escaped
    assert f'path="/nowhere\\r\\n{FORGED}\\x1b[31m\u00e2\\x80\u00ae"' in line
    assert not line.startswith("12:00:00 ERROR")
