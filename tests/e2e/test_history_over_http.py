"""The audit log and replay over HTTP: redacted while playing, fully visible and provable once finished."""
import random

from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import encode_data
from shared.eventstore.schema import ms_from_iso
from shared.rules.chance import commitment_of, seeded_deck

from .table import new_match, play_to_the_end, stream_version, view


def events_of(stack, match_id, token=None, after=0, limit=1000):
    reply = stack.http.get(f"/matches/{match_id}/events?after={after}&limit={limit}", token=token)
    assert reply.status == 200, reply.body
    return reply.body["events"]


def test_the_log_hides_unplayed_cards_from_all_but_their_holder_while_playing(stack):
    match_id, a, b = new_match(stack)
    dealt = {who: events_of(stack, match_id, token)[2] for who, token in (("A", a.token), ("B", b.token), (None, None))}
    assert dealt["A"]["type"] == "round_dealt"
    assert None not in dealt["A"]["data"]["hands"]["A"] and set(dealt["A"]["data"]["hands"]["B"]) == {None}
    assert None not in dealt["B"]["data"]["hands"]["B"] and set(dealt["B"]["data"]["hands"]["A"]) == {None}
    assert set(dealt[None]["data"]["hands"]["A"] + dealt[None]["data"]["hands"]["B"]) == {None}
    assert all(set(d["data"]["stock"]) == {None} for d in dealt.values())
    assert events_of(stack, match_id, after=1, limit=1)[0]["version"] == 2


def test_a_played_card_shows_in_its_deal_for_everyone(stack):
    match_id, a, b = new_match(stack)
    opening = view(stack, match_id, a.token, stream_version(stack, match_id))
    turn = opening["round"]["turn"]
    leader = a if turn == "A" else b
    card = view(stack, match_id, leader.token, opening["version"])["round"]["hand"][0]
    played = stack.http.post(f"/matches/{match_id}/actions", {"type": "play", "card": card}, token=leader.token)
    assert played.status == 200
    dealt = events_of(stack, match_id)[2]
    assert card in dealt["data"]["hands"][turn]


def test_a_finished_match_shows_everything_and_proves_its_deals(stack):
    match_id, a, b = new_match(stack)
    play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(3))

    log = events_of(stack, match_id)

    previous = genesis_hash(match_id)
    for event in log:
        assert event["hash"] == chain_hash(previous, event["version"], event["type"], event["schema_version"],
                                           ms_from_iso(event["at"]), encode_data(event["data"]))
        previous = event["hash"]
    seed = log[-1]["data"]["seed"]
    assert log[-1]["type"] == "match_won" and commitment_of(seed) == log[0]["data"]["seed_commitment"]
    for dealt in (e["data"] for e in log if e["type"] == "round_dealt"):
        deck = list(seeded_deck(seed, dealt["round"]))
        non_dealer = "B" if dealt["dealer"] == "A" else "A"
        assert dealt["hands"][non_dealer] == deck[0:6:2] and dealt["hands"][dealt["dealer"]] == deck[1:6:2]
        assert dealt["stock"] == deck[6:]


def test_replay_shows_the_match_as_it_was_at_a_version(stack):
    match_id, a, b = new_match(stack)
    at_join = view(stack, match_id, a.token, 3)
    assert at_join["version"] == 3

    replayed = stack.http.get(f"/matches/{match_id}/replay?version=3", token=a.token)
    assert replayed.status == 200 and replayed.body == at_join
    spectator = stack.http.get(f"/matches/{match_id}/replay?version=3").body
    assert "hand" not in spectator["round"] and "hands" not in spectator["round"]
    assert stack.http.get(f"/matches/{match_id}/replay?version=99").status == 404
    assert stack.http.get(f"/matches/{match_id}/replay?version=0").body["error"] == "INVALID_REQUEST"


def test_replay_of_a_finished_match_shows_both_hands(stack):
    match_id, a, b = new_match(stack)
    play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(4))
    replayed = stack.http.get(f"/matches/{match_id}/replay?version=3").body
    assert len(replayed["round"]["hands"]["A"]) == len(replayed["round"]["hands"]["B"]) == 3


def test_no_chain_link_is_published_before_the_end(stack):
    match_id, a, b = new_match(stack)
    for token in (a.token, b.token, None):
        assert {event["hash"] for event in events_of(stack, match_id, token)} == {None}
