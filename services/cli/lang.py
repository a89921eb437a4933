"""The language ``truc play`` and ``truc replay`` speak: ``--lang``, by default the terminal's own.

Every sentence these commands print goes through the ``terminal`` domain's translator
(:func:`shared.i18n.translator`), passed down to whatever draws it; English is the
default and the message ids. Strings kept in tables until they are shown are marked with
:func:`N_` so that extraction finds them; they are translated where they are printed.
"""
from __future__ import annotations

import os

import click

from shared.i18n import LANGUAGES, Translator, from_environment, translator

DOMAIN = "terminal"
ENGLISH = translator("en", DOMAIN)


def terminal(lang: str) -> Translator:
    """The terminal's translator in ``lang``."""
    return translator(lang, DOMAIN)


def counted(tr: Translator, singular: str, plural: str, number: object, /, **params: object) -> str:
    """A sentence about a count the server sent: its plural form when the count is a number,
    the plural otherwise; ``{value}`` is filled with ``params['value']`` (already markup)."""
    count = number if isinstance(number, int) and not isinstance(number, bool) else 2
    return tr.ngettext(singular, plural, count, **params)


lang_option = click.option(
    "--lang", type=click.Choice(LANGUAGES), default=lambda: from_environment(os.environ),
    show_default="from LC_ALL, LC_MESSAGES or LANG, else en",
    help="The language to speak (and to ask the server's messages in).")
