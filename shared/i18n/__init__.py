"""The players' languages: which one a request or a terminal asks for, and its catalogues.

Each language has one gettext catalogue per domain, kept as Babel ``.po`` files under
``locales/<lang>/LC_MESSAGES/<domain>.po`` and read as they are (no compiled ``.mo`` to
keep in step). English is the source: its strings are the message ids in the code, so it
needs no catalogue. Plural forms are CLDR's, from each file's ``Plural-Forms`` header
(Babel writes it from CLDR when a catalogue is created); nothing counts ``== 1`` itself.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

LANGUAGES = ("en", "fi", "nl", "pa", "bn", "ur", "fr", "ca")
DEFAULT = "en"
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != DEFAULT)  # those with catalogues
RIGHT_TO_LEFT = frozenset({"ur"})
DOMAINS = ("messages", "table", "terminal", "rules")  # the server's answers, the browser table, truc play, how to play
LOCALES = Path(__file__).with_name("locales")


def direction(lang: str) -> str:
    """``rtl`` or ``ltr``: the ``dir`` of a page in ``lang``."""
    return "rtl" if lang in RIGHT_TO_LEFT else "ltr"


def supported(tag: str | None) -> str | None:
    """The supported language a tag names (``fi``, ``fi-FI``, ``fi_FI.UTF-8``), else None."""
    if not tag:
        return None
    primary = tag.strip().replace("_", "-").split(".")[0].split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def negotiate(query: str | None, accept_language: str | None) -> str:
    """``?lang=`` if it names a supported language, else the best of ``Accept-Language``
    by its q-values, else English."""
    asked = supported(query)
    if asked:
        return asked
    accepted = parse_accept_header(accept_language or "", LanguageAccept)
    for tag, quality in accepted:  # werkzeug orders them by quality, ties as sent
        if quality > 0 and (lang := supported(tag)):
            return lang
    return DEFAULT


def from_environment(environ: Mapping[str, str]) -> str:
    """A terminal's language, as POSIX reads it: LC_ALL, then LC_MESSAGES, then LANG."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return supported(environ[name]) or DEFAULT
    return DEFAULT


class Translator:
    """One language's strings of one domain; placeholders filled with ``str.format``."""

    def __init__(self, lang: str, translations: gettext.NullTranslations) -> None:
        self.lang, self._translations = lang, translations

    def gettext(self, message: str, **params: Any) -> str:
        text = self._translations.gettext(message)
        return text.format(**params) if params else text

    def ngettext(self, singular: str, plural: str, count: int, **params: Any) -> str:
        """The form of ``count``'s CLDR plural category; ``{count}`` is filled in too."""
        return self._translations.ngettext(singular, plural, count).format(count=count, **params)


def translator(lang: str, domain: str = "messages") -> Translator:
    """The translator of ``lang`` (English for anything unsupported) in ``domain``."""
    return _translator(supported(lang) or DEFAULT, domain)  # the cache holds supported languages only


@lru_cache(maxsize=len(LANGUAGES) * len(DOMAINS))
def _translator(lang: str, domain: str) -> Translator:
    read = _read(lang, domain)
    if read is None:
        return Translator(lang, gettext.NullTranslations())
    compiled = io.BytesIO()
    write_mo(compiled, read)  # fuzzy entries are left out, as gettext would
    return Translator(lang, gettext.GNUTranslations(io.BytesIO(compiled.getvalue())))


def catalogue(lang: str, domain: str) -> dict[str, Any]:
    """A domain's strings in ``lang`` as plain data (for the browser): message id -> text,
    or -> list of plural forms, with the plural rule's expression under ``""``. Built once
    per language and domain; callers only read it."""
    return _catalogue(supported(lang) or DEFAULT, domain)


@lru_cache(maxsize=len(LANGUAGES) * len(DOMAINS))
def _catalogue(lang: str, domain: str) -> dict[str, Any]:
    read = _read(lang, domain)
    if read is None:
        return {"": {"lang": lang, "plural": "n != 1", "dir": direction(lang)}}
    strings: dict[str, Any] = {"": {"lang": lang, "plural": read.plural_expr, "dir": direction(lang)}}
    for message in read:
        if message.id and message.string and not message.fuzzy:
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            strings[key] = list(message.string) if isinstance(message.string, tuple) else message.string
    return strings


@lru_cache(maxsize=len(LANGUAGES) * len(DOMAINS))
def _read(lang: str, domain: str) -> Catalog | None:
    """The catalogue file of a supported language, parsed; None for English (the ids) or none kept."""
    path = LOCALES / lang / "LC_MESSAGES" / f"{domain}.po"
    if lang == DEFAULT or not path.exists():
        return None
    with path.open("rb") as source:
        return read_po(source, locale=lang, domain=domain)
