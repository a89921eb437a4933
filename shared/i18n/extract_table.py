"""The ``table`` domain's catalogues, extracted from the browser table's own files.

``python -m shared.i18n.extract_table`` reads every ``_("…")`` and ``ngettext("…", "…", n)``
of the table's scripts (Babel's ``javascript`` extractor) and of its page template (Jinja's
Babel extractor), writes ``locales/table.pot``, and brings each language's ``table.po`` in
step with it: new messages come in empty, gone ones go, translations are kept. Nothing is
guessed (no fuzzy matching): a changed English sentence is a new message to translate.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from . import DEFAULT, LANGUAGES, LOCALES

ROOT = LOCALES.parents[2]
TABLE = ROOT / "services" / "api"
SCRIPTS = ("static/i18n.js", "static/sentences.js", "static/table.js")
TEMPLATES = ("templates/table.html",)
KEYWORDS = {"_": None, "ngettext": (1, 2)}
TEMPLATE = LOCALES / "table.pot"


def _extracted(path: Path, method: str) -> Iterable[tuple]:
    return extract_from_file(method, str(path), keywords=KEYWORDS, comment_tags=("NOTE:",))


def template() -> Catalog:
    """Every message of the table, in the order the files say them."""
    catalog = Catalog(project="Le Truc", domain="table", fuzzy=False)
    sources = [(name, "javascript") for name in SCRIPTS] + [(name, "jinja2.ext:babel_extract") for name in TEMPLATES]
    for name, method in sources:
        for line, message, comments, _context in _extracted(TABLE / name, method):
            catalog.add(message, locations=[(f"services/api/{name}", line)], auto_comments=comments)
    return catalog


def _updated(lang: str, pot: Catalog) -> Catalog:
    path = LOCALES / lang / "LC_MESSAGES" / "table.po"
    if path.exists():
        with path.open("rb") as source:
            catalog = read_po(source, locale=lang, domain="table")
    else:
        catalog = Catalog(locale=lang, domain="table", project="Le Truc", fuzzy=False)
    catalog.update(pot, no_fuzzy_matching=True, update_header_comment=False)
    return catalog


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as target:
        write_po(target, catalog, width=100, omit_header=False, ignore_obsolete=True, sort_output=False)


def main(argv: list[str] | None = None) -> int:
    """Write table.pot and update each language's table.po from it."""
    del argv
    pot = template()
    _write(TEMPLATE, pot)
    for lang in LANGUAGES:
        if lang != DEFAULT:
            _write(LOCALES / lang / "LC_MESSAGES" / "table.po", _updated(lang, pot))
    print(f"{len(pot)} messages in {TEMPLATE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
