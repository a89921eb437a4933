"""Every API error code over HTTP; a refused request records nothing."""
import pytest

from tests.unit.rules.given import deck_for

from .table import new_match, register, stream_version

# Round 1 with dealer B: A holds 7C 8C KC, B holds JH QH AH (A wins every trick).
DECKS = [list(deck_for("JH QH AH", "7C 8C KC"))]


@pytest.fixture
def fixed(stack):
    """A match dealt from a known deck: (id, A, B)."""
    return new_match(stack, decks=DECKS, first_dealer="B")


def act(stack, match_id, player, body=None, raw=None, headers=None):
    return stack.http.post(f"/matches/{match_id}/actions", body, token=player.token if player else None,
                           raw=raw, headers=headers)


def refused(stack, match_id, reply, status, code):
    before = stream_version(stack, match_id)
    assert reply.status == status, reply.body
    assert reply.body["error"] == code and reply.body["message"]
    assert stream_version(stack, match_id) == before


@pytest.mark.parametrize(("body", "raw"), [
    (None, b"{not json"), (None, b"[1, 2]"), ({"type": "dance"}, None), ({"type": "play"}, None),
    ({"type": "play", "card": 7}, None), ({"type": "raise", "card": "7H"}, None), ({"kind": "raise"}, None),
    ({"type": "raise", "extra": 1}, None), (None, b"[" * 5000 + b"]" * 5000),
])
def test_malformed_action_bodies_are_400_and_record_nothing(stack, fixed, body, raw):
    match_id, a, _ = fixed
    before = stream_version(stack, match_id)
    reply = act(stack, match_id, a, body, raw)
    assert reply.status == 400 and reply.body["error"] == "INVALID_REQUEST", reply.body
    assert stream_version(stack, match_id) == before


def test_an_oversized_body_is_413(stack, fixed):
    match_id, a, _ = fixed
    reply = act(stack, match_id, a, raw=b'{"type": "' + b"x" * 100_000 + b'"}')
    refused(stack, match_id, reply, 413, "BODY_TOO_LARGE")


def test_missing_and_forged_tokens_are_401(stack, fixed):
    match_id, a, _ = fixed
    refused(stack, match_id, act(stack, match_id, None, {"type": "fold"}), 401, "UNAUTHENTICATED")
    forged = type(a)(a.id, a.name, "forged-token")
    refused(stack, match_id, act(stack, match_id, forged, {"type": "fold"}), 401, "UNAUTHENTICATED")
    refused(stack, match_id, act(stack, match_id, None, {"type": "fold"}, headers={"Authorization": "Basic eA=="}),
            401, "UNAUTHENTICATED")


def test_acting_in_a_foreign_match_is_403(stack, fixed):
    match_id, _, _ = fixed
    stranger = register(stack, "stranger")
    refused(stack, match_id, act(stack, match_id, stranger, {"type": "fold"}), 403, "NOT_A_PLAYER")


def test_unknown_matches_are_404(stack):
    player = register(stack)
    for path in ("/matches/nope/actions", "/matches/nope/join"):
        reply = stack.http.post(path, {"type": "fold"}, token=player.token)
        assert reply.status == 404 and reply.body["error"] == "NOT_FOUND"
    assert stack.http.get("/matches/nope").status == 404
    assert stack.http.get("/matches/%7Bbad%7D").status == 404
    assert stack.http.get("/players/nope").body["error"] == "NOT_FOUND"


def test_player_names_are_validated_and_unique(stack):
    taken = register(stack)
    assert stack.http.post("/players", {"name": taken.name.upper()}).body["error"] == "NAME_TAKEN"
    for bad in ({"name": ""}, {"name": "x" * 33}, {"name": "a\u202eb"}, {}, {"name": None}):
        reply = stack.http.post("/players", bad)
        assert reply.status == 400 and "name" in reply.body["fields"], reply.body


def test_seating_errors(stack, fixed):
    match_id, a, b = fixed
    third = register(stack)
    assert stack.http.post(f"/matches/{match_id}/join", token=a.token).body["error"] == "ALREADY_SEATED"
    assert stack.http.post(f"/matches/{match_id}/join", token=third.token).body["error"] == "MATCH_FULL"


@pytest.mark.parametrize("options", [
    {"rules": {"raise_ladder": "odd"}}, {"rules": {"nope": 1}}, {"start_scores": [12, 0]},
    {"start_scores": [1]}, {"decks": [["7H"] * 32]}, {"decks": [["7H"]]}, {"first_dealer": "C"},
    {"opponent": "human"}, {"rules": "seed"},
])
def test_bad_match_options_are_400(stack, options):
    player = register(stack)
    reply = stack.http.post("/matches", options, token=player.token)
    assert reply.status == 400 and reply.body["error"] == "INVALID_REQUEST" and reply.body["fields"], reply.body


def test_if_match_and_idempotency_key_headers(stack, fixed):
    match_id, a, _ = fixed
    version = stream_version(stack, match_id)
    stale = act(stack, match_id, a, {"type": "raise"}, headers={"If-Match": f'"{version - 1}"'})
    refused(stack, match_id, stale, 412, "VERSION_CONFLICT")
    assert stale.body["version"] == version
    refused(stack, match_id, act(stack, match_id, a, {"type": "raise"}, headers={"If-Match": "soon"}), 400,
            "INVALID_REQUEST")
    refused(stack, match_id, act(stack, match_id, a, {"type": "raise"}, headers={"Idempotency-Key": "k" * 65}), 400,
            "INVALID_REQUEST")


def test_every_rule_code_over_http(stack, fixed):
    match_id, a, b = fixed
    code = lambda player, body: act(stack, match_id, player, body)  # noqa: E731
    check = lambda player, body, expected: refused(stack, match_id, code(player, body), 409, expected)  # noqa: E731
    check(b, {"type": "play", "card": "JH"}, "NOT_YOUR_TURN")
    check(a, {"type": "accept"}, "NOTHING_TO_ANSWER")
    check(a, {"type": "play", "card": "ZZ"}, "CARD_NOT_IN_HAND")
    check(a, {"type": "play", "card": "JH"}, "CARD_NOT_IN_HAND")
    assert code(a, {"type": "remainder"}).status == 200
    check(a, {"type": "accept"}, "OWN_QUESTION")
    check(a, {"type": "play", "card": "7C"}, "QUESTION_PENDING")
    assert code(b, {"type": "accept"}).status == 200
    check(a, {"type": "propose_redeal"}, "REDEAL_CLOSED")
    check(a, {"type": "raise"}, "REMAINDER_ROUND")
    assert code(a, {"type": "play", "card": "7C"}).status == 200
    assert code(b, {"type": "play", "card": "JH"}).status == 200
    assert code(a, {"type": "play", "card": "8C"}).status == 200
    won = code(b, {"type": "play", "card": "QH"})
    assert won.status == 200 and won.body["events"][-1]["type"] == "match_won"
    check(b, {"type": "fold"}, "MATCH_OVER")


def test_not_started_and_not_entitled_over_http(stack):
    a = register(stack)
    created = stack.http.post("/matches", {"decks": DECKS, "first_dealer": "B"}, token=a.token)
    match_id = created.body["id"]
    refused(stack, match_id, act(stack, match_id, a, {"type": "fold"}), 409, "NOT_STARTED")
    b = register(stack)
    stack.http.post(f"/matches/{match_id}/join", {"accept_custom": True}, token=b.token)
    assert act(stack, match_id, a, {"type": "raise"}).status == 200
    assert act(stack, match_id, b, {"type": "accept"}).status == 200
    refused(stack, match_id, act(stack, match_id, a, {"type": "raise"}), 409, "NOT_ENTITLED")
