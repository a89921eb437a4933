"""The language of a request (API.md "Languages"): chosen once, said on every answer.

``?lang=`` wins, then ``Accept-Language`` by its q-values, then English
(:func:`shared.i18n.negotiate`). Every response says which with ``Content-Language`` and
``Vary: Accept-Language``. :mod:`.error_handlers` translates each answer's sentence at answer
time with :func:`translator_now`; error codes are never translated.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from flask import g, has_request_context, request
from werkzeug.wrappers import Response

from shared.i18n import DEFAULT, Translator, negotiate, translator

from .field_messages import FIELD_MESSAGES


@dataclass(frozen=True)
class Plural:
    """A sentence, or a value of one, said with a count: in the form of the language's (CLDR)
    plural category for ``count``; ``{count}`` is filled in."""

    singular: str
    plural: str
    count: int

    def said(self, tr: Translator) -> str:
        return tr.ngettext(self.singular, self.plural, self.count)


def language() -> str:
    """This request's language (English outside a request)."""
    if not has_request_context():
        return DEFAULT
    if "lang" not in g:
        g.lang = negotiate(request.args.get("lang"), request.headers.get("Accept-Language"))
    return g.lang


def speak(lang: str) -> None:
    """This request speaks ``lang``, chosen otherwise than :func:`language` would (the browser table's cookie)."""
    g.lang = lang


def translator_now() -> Translator:
    return translator(language())


def say(message: str, **params: Any) -> str:
    """``message`` (an English msgid) in this request's language."""
    return translator_now().gettext(message, **params)


def mark_language(response: Response) -> Response:
    """After every request: which language the answer speaks, and that it depends on Accept-Language."""
    response.headers["Content-Language"] = language()
    response.vary.add("Accept-Language")  # added to any Vary already there
    return response


def translated_fields(fields: Any, tr: Translator) -> Any:
    """The ``fields`` detail of a 400 with each sentence translated, whatever its nesting."""
    if isinstance(fields, str):
        return field_text(fields, tr)
    if isinstance(fields, dict):
        return {key: translated_fields(value, tr) for key, value in fields.items()}
    if isinstance(fields, (list, tuple)):
        return [translated_fields(value, tr) for value in fields]
    return fields


def field_text(text: str, tr: Translator) -> str:
    """One field's English sentence, as a validator wrote it with its values filled in, translated:
    it is matched against the known templates to find the msgid and its values."""
    for template, pattern in _patterns(FIELD_MESSAGES):
        found = pattern.fullmatch(text)
        if found:
            return tr.gettext(template, **found.groupdict()) if found.groupdict() else tr.gettext(template)
    return tr.gettext(text)  # a sentence without values, else itself (a variant's, already translated)


@lru_cache(maxsize=1)
def _patterns(templates: Iterable[str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    compiled = []
    for template in templates:
        parts = re.split(r"\{(\w+)\}", template)  # literal, name, literal, name, ...
        regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
        compiled.append((template, re.compile(regex, re.DOTALL)))
    return tuple(compiled)
