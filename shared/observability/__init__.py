"""What every process tells its operators: Prometheus metrics and one-line structured logs.

- :mod:`.log_context`: the request id rules, and the ids (request, match, player) bound to
  whatever the current request or job logs;
- :mod:`.logs`: one JSON object per line (``LOG_FORMAT=json``) or a line for people
  (``text``), with tokens, seeds and credentials kept out;
- :mod:`.metrics`: the metrics themselves (names and bounded labels, in one place);
- :mod:`.exposition`: serving them (gunicorn's multiprocess directory, a worker's own port)
  and the figures read from Redis at scrape time.
"""
