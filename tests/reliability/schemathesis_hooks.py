"""schemathesis hooks of the reliability suite (loaded through SCHEMATHESIS_HOOKS).

Generated query strings are kept well under gunicorn's request-line limit (4094 bytes):
a longer request line never reaches the application - gunicorn itself answers an HTML
400 - so it would test gunicorn's limit, not the API's contract.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import schemathesis

MAX_QUERY_BYTES = 2000


@schemathesis.hook
def filter_query(ctx: Any, query: dict[str, Any] | None) -> bool:
    """Keep only queries whose encoding fits comfortably in a request line."""
    return query is None or len(urlencode(query, doseq=True)) <= MAX_QUERY_BYTES
