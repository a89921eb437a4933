"""The browser table's catalogue as the page gets it: every string, the language and the plural
rule as an expression. (Every domain's catalogues are checked complete in test_catalogues.)"""
from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from shared.i18n import TRANSLATED, catalogue
from shared.i18n.extract import DOMAINS


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_browser_gets_every_string_and_the_plural_rule(lang):
    strings = catalogue(lang, "table")
    assert strings[""]["lang"] == lang
    assert re.fullmatch(r"[n!=<>()&|%\d ?:]+", strings[""]["plural"])
    with DOMAINS["table"].po_path(lang).open("rb") as source:
        assert len(strings) - 1 == sum(1 for m in read_po(source, locale=lang, domain="table") if m.id)
    assert isinstance(strings["{count} second left to decide."], list)
