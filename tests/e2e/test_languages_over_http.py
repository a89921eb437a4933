"""API.md "Languages": every answer's sentence in the request's language, its code unchanged."""
import pytest

from tests.unit.rules.given import deck_for

from .table import new_match, register, stream_version

# Round 1 with dealer B: A (the non-dealer) leads, so B playing first is NOT_YOUR_TURN.
DECKS = [list(deck_for("JH QH AH", "7C 8C KC"))]


@pytest.fixture
def fixed(stack):
    return new_match(stack, decks=DECKS, first_dealer="B")


def out_of_turn(stack, match_id, b, query="", **headers):
    reply = stack.http.post(f"/matches/{match_id}/actions{query}", {"type": "play", "card": "JH"}, token=b.token,
                            headers=headers)
    assert reply.status == 409 and reply.body["error"] == "NOT_YOUR_TURN", reply.body
    return reply


def test_a_refusal_in_every_language_keeps_its_code(stack, fixed) -> None:
    match_id, _, b = fixed
    before = stream_version(stack, match_id)
    said = {}
    for lang in ("en", "fi", "nl", "pa", "bn", "ur"):
        reply = out_of_turn(stack, match_id, b, f"?lang={lang}")
        assert reply.headers["content-language"] == lang
        assert "accept-language" in reply.headers["vary"].lower()
        said[lang] = reply.body["message"]
    assert said["en"] == "It is A's turn to play."
    assert len(set(said.values())) == 6, said  # six different sentences
    assert all("A" in sentence for sentence in said.values())  # the seat is filled in
    assert said["nl"] == "Speler A is aan de beurt."
    assert stream_version(stack, match_id) == before


def test_accept_language_by_quality_and_lang_wins(stack, fixed) -> None:
    match_id, _, b = fixed
    by_header = out_of_turn(stack, match_id, b, **{"Accept-Language": "nl;q=0.4, fi;q=0.8, en;q=0.1"})
    assert by_header.headers["content-language"] == "fi"
    assert by_header.body["message"] == "On pelaajan A vuoro pelata."
    by_query = out_of_turn(stack, match_id, b, "?lang=ur", **{"Accept-Language": "fi"})
    assert by_query.headers["content-language"] == "ur" and by_query.body["message"] != by_header.body["message"]


def test_an_unsupported_language_is_english(stack, fixed) -> None:
    match_id, _, b = fixed
    reply = out_of_turn(stack, match_id, b, "?lang=de", **{"Accept-Language": "de, es;q=0.9"})  # neither is served
    assert reply.headers["content-language"] == "en" and reply.body["message"] == "It is A's turn to play."


def test_api_errors_and_validation_are_translated(stack) -> None:
    missing = stack.http.get("/matches/nope", headers={"Accept-Language": "nl"})
    assert missing.status == 404 and missing.body == {"error": "NOT_FOUND", "message": "Dit spel bestaat niet."}
    invalid = stack.http.post("/players?lang=fi", {})
    assert invalid.body["error"] == "INVALID_REQUEST"
    assert invalid.body["message"] == "Pyyntö ei ole kelvollinen: katso kentät."
    assert invalid.body["fields"]["name"] == ["Pakollisen kentän tieto puuttuu."]
    nowhere = stack.http.get("/no/such/path?lang=bn")
    assert nowhere.status == 404 and nowhere.body["message"] == "এই ঠিকানায় কিছু নেই।"
    assert nowhere.headers["content-language"] == "bn"
    unauthenticated = stack.http.post("/matches", {}, headers={"Accept-Language": "pa"})
    assert unauthenticated.status == 401 and unauthenticated.body["error"] == "UNAUTHENTICATED"
    assert unauthenticated.body["message"].endswith("।")


def test_successful_answers_say_their_language_too(stack) -> None:
    player = register(stack)
    reply = stack.http.get(f"/players/{player.id}", headers={"Accept-Language": "ur"})
    assert reply.status == 200 and reply.headers["content-language"] == "ur"
    assert "accept-language" in reply.headers["vary"].lower()
