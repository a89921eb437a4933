"""``python -m shared.i18n.extract [DOMAIN ...]`` (``make messages``): every catalogue, from the code.

Four domains, each read from its own sources (no domain names: all four):

- ``messages``: the server's answers (the rules' refusals, the API's errors and validation
  messages), Python over services/api and shared/rules;
- ``table``: the browser table, Babel's ``javascript`` extractor over its scripts and Jinja's
  over its page template;
- ``terminal``: ``truc play`` and ``truc replay``, Python over services/cli;
- ``rules``: how to play (the rules page, the table's help panel, ``truc rules``), Python over
  shared/i18n/how_to_play.py.

For each, the template ``locales/<domain>.pot`` is written and each language's ``<domain>.po``
brought in step with it: new messages arrive empty, gone ones are dropped, translations are
kept. Nothing is guessed (no fuzzy matching): a changed English sentence is a new message to
translate, and the catalogue tests fail until someone does.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from . import LOCALES, TRANSLATED

ROOT = LOCALES.parents[2]  # the project
WRITE_OPTIONS = {"width": 100, "ignore_obsolete": True, "sort_output": False}


@dataclass(frozen=True)
class Domain:
    """Where a domain's messages are written, and how to read them.

    ``method_map`` patterns are relative to each of ``sources`` (folders of the project); the
    first pattern a file matches decides its extractor (``ignore``: none).
    """

    name: str
    sources: tuple[str, ...]
    method_map: tuple[tuple[str, str], ...]
    keywords: dict[str, tuple[int, ...] | None]
    comment_tags: tuple[str, ...] = ()
    strip_comment_tags: bool = False
    project: str = "Le Truc"

    @property
    def template_path(self) -> Path:
        return LOCALES / f"{self.name}.pot"

    def po_path(self, lang: str) -> Path:
        return LOCALES / lang / "LC_MESSAGES" / f"{self.name}.po"


DOMAINS = {domain.name: domain for domain in (
    # The server's answers only: the browser table and the terminal have domains of their own.
    # Keywords: the function or class a sentence is given to, and its argument position(s).
    Domain(
        name="messages",
        sources=("services/api", "shared/rules"),
        method_map=(("browser_table.py", "ignore"), ("static/**", "ignore"), ("**.py", "python")),
        keywords={
            "N_": None, "_": None, "say": None, "gettext": None,
            "ngettext": (1, 2), "Plural": (1, 2),
            "RuleError": (2,), "SetupError": (2,), "ApiError": (3,), "invalid": (1,),
        },
        comment_tags=("TRANSLATORS:",), strip_comment_tags=True, project="le-truc",
    ),
    Domain(
        name="table",
        sources=("services/api",),
        method_map=(("static/*.js", "javascript"), ("templates/*.html", "jinja2.ext:babel_extract")),
        keywords={"_": None, "ngettext": (1, 2)},
        comment_tags=("NOTE:",),
    ),
    Domain(
        name="terminal",
        sources=("services/cli",),
        method_map=(("**.py", "python"),),
        keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "counted": (2, 3)},
    ),
    Domain(
        name="rules",
        sources=("shared/i18n",),
        method_map=(("how_to_play.py", "python"), ("**", "ignore")),
        keywords={"N_": None},
    ),
)}


def template(domain: Domain | str) -> Catalog:
    """Every message of ``domain``'s sources, in the order the files say them, with where each is."""
    domain = DOMAINS[domain] if isinstance(domain, str) else domain
    catalog = Catalog(project=domain.project, domain=domain.name, charset="utf-8", fuzzy=False)
    for source in domain.sources:
        found = extract_from_dir(
            ROOT / source, list(domain.method_map), keywords=domain.keywords,
            comment_tags=domain.comment_tags, strip_comment_tags=domain.strip_comment_tags,
        )
        for filename, lineno, message, comments, context in found:
            catalog.add(message, None, [(f"{source}/{filename}", lineno)], auto_comments=comments,
                        context=context)
    return catalog


def updated(domain: Domain, pot: Catalog, lang: str) -> Catalog:
    """``lang``'s catalogue brought up to ``pot`` (created, with CLDR's plural forms, if missing)."""
    path = domain.po_path(lang)
    if path.exists():
        with path.open("rb") as source:
            catalog = read_po(source, locale=lang, domain=domain.name)
    else:
        catalog = Catalog(locale=lang, domain=domain.name, project=domain.project, charset="utf-8",
                          fuzzy=False)
    catalog.update(pot, no_fuzzy_matching=True, update_header_comment=False)
    return catalog


def write(path: Path, catalog: Catalog) -> None:
    """Write ``catalog`` to ``path``, the same way for every domain."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        write_po(out, catalog, **WRITE_OPTIONS)


def extract(domain: Domain) -> int:
    """Write ``domain``'s template and update every translated language's catalogue; the count."""
    pot = template(domain)
    write(domain.template_path, pot)
    for lang in TRANSLATED:
        write(domain.po_path(lang), updated(domain, pot, lang))
    return len(pot)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared.i18n.extract", description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="*", metavar="DOMAIN",
                        help=f"the domains to extract ({', '.join(DOMAINS)}; default: all)")
    names = parser.parse_args(argv).domains or list(DOMAINS)
    unknown = [name for name in names if name not in DOMAINS]
    if unknown:
        parser.error(f"unknown domain(s): {', '.join(unknown)} (choose from {', '.join(DOMAINS)})")
    for name in names:
        count = extract(DOMAINS[name])
        print(f"{DOMAINS[name].template_path.relative_to(ROOT)}: {count} messages, catalogues updated")
    return 0

if __name__ == "__main__":
    sys.exit(main())
