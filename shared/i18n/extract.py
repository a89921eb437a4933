"""``python -m shared.i18n.extract`` (``make messages``): the server's sentences, from the code.

Reads every sentence the API answers where it is written (the rules' refusals, the API's
errors and validation messages), writes the template ``locales/messages.pot`` and brings
each language's ``messages.po`` up to it: new sentences arrive empty, gone ones are
dropped, a changed one keeps its old translation marked fuzzy (a fuzzy entry is not
used, and the catalogue tests fail until someone translates it again).
"""
from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from . import DEFAULT, LANGUAGES, LOCALES

DOMAIN = "messages"
ROOT = LOCALES.parents[2]  # the project
TEMPLATE = LOCALES / f"{DOMAIN}.pot"

# Where a sentence is written, by the function or class it is given to: its argument position(s).
KEYWORDS = {
    "N_": None, "_": None, "say": None, "gettext": None,
    "ngettext": (1, 2), "Plural": (1, 2),
    "RuleError": (2,), "SetupError": (2,), "ApiError": (3,), "invalid": (1,),
}
# The server's answers only: the browser table and the terminal have domains of their own.
METHOD_MAP = [
    ("services/api/browser_table.py", "ignore"),
    ("services/api/static/**", "ignore"),
    ("shared/rules/**.py", "python"),
    ("services/api/**.py", "python"),
]


def template() -> Catalog:
    """The sentences of the code, with where each is written."""
    catalog = Catalog(project="le-truc", domain=DOMAIN, charset="utf-8", fuzzy=False)
    extracted = extract_from_dir(ROOT, METHOD_MAP, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
                                 strip_comment_tags=True)
    for filename, lineno, message, comments, context in extracted:
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def update(pot: Catalog, lang: str) -> Path:
    """Bring ``lang``'s catalogue up to ``pot`` (created, with CLDR's plural forms, if missing)."""
    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if path.exists():
        with path.open("rb") as source:
            catalog = read_po(source, locale=lang, domain=DOMAIN)
    else:
        catalog = Catalog(locale=lang, domain=DOMAIN, project="le-truc", charset="utf-8", fuzzy=False)
    catalog.update(pot, update_header_comment=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        write_po(out, catalog, width=100, ignore_obsolete=True, include_previous=True, sort_output=False)
    return path


def main() -> int:
    pot = template()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    with TEMPLATE.open("wb") as out:
        write_po(out, pot, width=100, sort_output=False)
    print(f"{TEMPLATE.relative_to(ROOT)}: {len(pot)} messages")
    for lang in LANGUAGES:
        if lang != DEFAULT:
            path = update(pot, lang)
            print(f"{path.relative_to(ROOT)}: updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
