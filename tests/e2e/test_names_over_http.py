"""Names in every script of the supported languages register over HTTP, and collide as they should."""
from __future__ import annotations

import unicodedata
import uuid

import pytest

NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731
ZWJ, ZWNJ = "\u200d", "\u200c"

SCRIPTS = {  # script: (a name, as sent; as kept; another way to write it or a look-alike)
    "Latin, English": ("Alice", "Alice", "АLICE"),  # Cyrillic А
    "Latin, Finnish": (NFD("Äijä"), "Äijä", "ÄIJÄ"),
    "Latin, Dutch": ("Ĳsbrand", "IJsbrand", "ijsbrand"),
    "Gurmukhi": ("ਗੁਰਪ੍ਰੀਤ", "ਗੁਰਪ੍ਰੀਤ", f"ਗੁਰਪ੍{ZWJ}ਰੀਤ"),
    "Bengali": ("জ\u09df", "জয়", "জয়"),
    "Arabic script, Urdu": (f"ع{ZWNJ}مران", f"ع{ZWNJ}مران", "عمران"),
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_name_registers_in_its_script_and_its_variants_and_look_alikes_are_taken(stack, script):
    sent, kept, other = SCRIPTS[script]
    suffix = f" {uuid.uuid4().int % 10**9}"  # the stack is shared by the whole session
    created = stack.http.post("/players", {"name": sent + suffix})
    assert created.status == 201, created.body
    assert created.body["name"] == kept + suffix
    assert stack.http.get(f"/players/{created.body['id']}").body["name"] == kept + suffix
    for same in (kept + suffix, other + suffix, f"  {other}{suffix}  "):
        taken = stack.http.post("/players", {"name": same})
        assert taken.status == 409 and taken.body["error"] == "NAME_TAKEN", (same, taken.body)


@pytest.mark.parametrize("name", [
    "Bot\u202e", "\u2067عمران\u2069", "a\u200bb", f"a{ZWJ}b", f"জ{ZWJ}য়", "bell\x07", "x" * 33,
])
def test_controls_format_and_bidi_characters_are_refused(stack, name):
    reply = stack.http.post("/players", {"name": name})
    assert reply.status == 400 and reply.body["error"] == "INVALID_REQUEST" and "name" in reply.body["fields"]


def test_the_bots_look_alike_is_taken(stack):
    assert stack.http.post("/players", {"name": "Воt"}).body["error"] == "NAME_TAKEN"
