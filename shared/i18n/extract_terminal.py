"""The ``terminal`` domain's catalogues, kept in step with the code of ``truc play`` and ``truc replay``.

``python -m shared.i18n.extract_terminal`` extracts every string of services/cli marked for
translation (``gettext``, ``ngettext``, ``N_``, ``counted``) into ``locales/terminal.pot``,
then updates each language's ``terminal.po`` from it: new strings are added untranslated,
gone ones dropped, and the ``Plural-Forms`` header is CLDR's for the language (Babel's).
"""
from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from . import DEFAULT, LANGUAGES, LOCALES

DOMAIN = "terminal"
SOURCE = Path(__file__).resolve().parents[2] / "services" / "cli"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "counted": (2, 3)}
TEMPLATE = LOCALES / f"{DOMAIN}.pot"


def template() -> Catalog:
    """Every marked string of services/cli, with where it is used."""
    catalog = Catalog(project="Le Truc", domain=DOMAIN, fuzzy=False)
    found = extract_from_dir(SOURCE, method_map=[("**.py", "python")], keywords=KEYWORDS)
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(f"services/cli/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def update(pot: Catalog) -> None:
    """Write the template and bring each language's catalogue in step with it."""
    _write(TEMPLATE, pot)
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as source:
                catalog = read_po(source, locale=lang, domain=DOMAIN)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="Le Truc", fuzzy=False)
        catalog.update(pot, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _write(path, catalog)


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as target:
        write_po(target, catalog, width=0, sort_output=False)


if __name__ == "__main__":
    update(template())
