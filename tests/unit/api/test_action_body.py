"""An action's body read without the schema when it is plainly valid: never other than the schema loads it."""
import fakeredis
import orjson
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import ValidationError

from services.api.schemas import ActionSchema, plainly_valid_action
from shared.rules import ACTIONS
from tests.unit.api.support import fake_app

_ints = st.integers(-2**63, 2**63 - 1)  # what JSON carries
_values = st.none() | st.booleans() | _ints | st.floats(allow_nan=False) | st.text(max_size=5) \
    | st.lists(_ints, max_size=2) | st.dictionaries(st.text(max_size=3), _ints, max_size=2)
_near_actions = st.dictionaries(
    st.sampled_from(["type", "card", "extra", "Type"]),
    st.sampled_from(sorted(ACTIONS)) | st.sampled_from(["7H", "", "10HH", "dance"]) | _values, max_size=3)


@given(_near_actions | _values)
def test_what_it_reads_is_what_the_schema_loads(body):
    fast = plainly_valid_action(orjson.dumps(body))
    try:
        loaded = ActionSchema().load(body)
    except ValidationError:
        assert fast is None
    else:
        assert fast is None or fast == loaded


def test_every_action_a_client_sends_is_read_without_the_schema():
    for kind in ACTIONS:
        body = {"type": kind, "card": "QS"} if kind == "play" else {"type": kind}
        assert plainly_valid_action(orjson.dumps(body)) == body


def test_what_is_not_json_or_not_an_object_is_left_to_the_schema():
    for raw in (b"{not json", b"[1, 2]", b'"play"', b"", b'{"type": ["play"]}', b'{"type": {"a": 1}}'):
        assert plainly_valid_action(raw) is None


def test_the_action_body_is_documented_as_the_schema_and_refused_in_its_words():
    client = fake_app(fakeredis.FakeRedis()).test_client()
    operation = client.get("/openapi.json").json["paths"]["/matches/{match_id}/actions"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Action"}
    player = client.post("/players", json={"name": "body"}).json
    reply = client.post("/matches/abcdefghijkl/actions", json={"type": "play"},
                        headers={"Authorization": f"Bearer {player['token']}"})
    assert reply.status_code == 400 and reply.json["fields"] == {"card": ["A play needs a card, e.g. \"7H\"."]}
