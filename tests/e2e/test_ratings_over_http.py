"""Rated matches over HTTP, by challenge and by pairing: the ratings served equal an independent
Glicko-2 fold of the recorded results, ``truc ratings verify`` agrees, and a rebuild changes nothing."""
from __future__ import annotations

import math
import random
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import orjson

from shared import keys

from .table import register, view

ROOT = Path(__file__).resolve().parents[2]
SCALE = 173.7178


def _glicko2_one_game(r, rd, sigma, r_j, rd_j, score, tau=0.75):
    """Glickman's steps for one game, written again here, apart from the service's module."""
    mu, phi, mu_j, phi_j = (r - 1500) / SCALE, rd / SCALE, (r_j - 1500) / SCALE, rd_j / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g * g * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma ** 2)

    def f(x):
        return math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2 * (phi ** 2 + v + math.exp(x)) ** 2) \
            - (x - a) / tau ** 2

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    new_sigma = math.exp(big_a / 2)
    phi_star = math.sqrt(phi ** 2 + new_sigma ** 2)
    new_phi = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    new_mu = mu + new_phi ** 2 * g * (score - e)
    return 1500 + SCALE * new_mu, min(max(SCALE * new_phi, 45), 500), min(new_sigma, 0.1)


def independent_fold(results):
    """Lichess's way: each game a rating period, RD grown by the idle days (0.21436 periods a day)."""
    players = {}
    for ended, _match, a, b, a_won in sorted(results, key=lambda r: (r[0], r[1])):
        now = {}
        for p in (a, b):
            r, rd, sigma, last = players.get(p, (1500.0, 500.0, 0.09, None))
            if last is not None:
                periods = (ended - last) / 86_400_000 * 0.21436
                rd = min(SCALE * math.sqrt((rd / SCALE) ** 2 + periods * sigma ** 2), 500)
            now[p] = (r, rd, sigma)
        (ra, rb), score = (now[a], now[b]), 1.0 if a_won else 0.0
        players[a] = (*_glicko2_one_game(*ra, rb[0], rb[1], score), ended)
        players[b] = (*_glicko2_one_game(*rb, ra[0], ra[1], 1.0 - score), ended)
    return players


def _act(stack, match_id, token, body):
    reply = stack.http.post(f"/matches/{match_id}/actions", body, token=token)
    assert reply.status == 200, reply.body
    return reply.body["version"]


def play_one_round_then_resign(stack, match_id, seats, loser):
    """Round 1 ends by a fold (so the match is not aborted), then ``loser`` resigns: a rated result."""
    state = view(stack, match_id, seats["A"].token)
    for seat in ("A", "B"):
        mine = view(stack, match_id, seats[seat].token, state["version"])
        if {"type": "fold"} in mine["legal_actions"]:
            version = _act(stack, match_id, seats[seat].token, {"type": "fold"})
            break
    version = _act(stack, match_id, seats[loser].token, {"type": "resign"})
    final = view(stack, match_id, None, version)
    assert final["status"] == "finished" and final["rated"] and final["ended_by"] == "resigned"
    return final


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _recorded_result(stack, match_id):
    events = stack.http.get(f"/matches/{match_id}/events?limit=1000").body["events"]
    final = view(stack, match_id, None)
    seats = final["players"]
    return _ms(events[-1]["at"]), match_id, seats["A"]["id"], seats["B"]["id"], final["winner"] == "A"


def _challenge(stack, a, b):
    created = stack.http.post("/matches", {"rated": True}, token=a.token)
    assert created.status == 201 and created.body["rated"] is True, created.body
    joined = stack.http.post(f"/matches/{created.body['id']}/join", {}, token=b.token)
    assert joined.status == 200, joined.body
    return created.body["id"], {"A": a, "B": b}


def _paired(stack, first, second):
    one = stack.http.post("/seeks", {"rated": True}, token=first.token)
    assert one.status == 201, one.body
    two = stack.http.post("/seeks", {"rated": True}, token=second.token)
    assert two.status == 201, two.body
    told = _paired_notice(stack, first, one.body["id"])
    match = view(stack, told["match_id"], None)
    seats = {seat: first if match["players"][seat]["id"] == first.id else second for seat in ("A", "B")}
    assert match["status"] == "playing" and match["rated"] is True
    assert {seated.id for seated in seats.values()} == {first.id, second.id}
    return told["match_id"], seats


def _paired_notice(stack, player, seek_id):
    """The ``paired`` notice of the player's stream for ``seek_id`` (at once, or once the window widened)."""
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        for _, entry in stack.redis.xrange(keys.player_feed(player.id)):
            told = orjson.loads(entry[b"data"]) if entry[b"type"] == b"paired" else {}
            if told.get("seek_id") == seek_id:
                return told
        time.sleep(0.1)
    raise AssertionError(f"seek {seek_id} was not paired in 40 s")


def _served(stack, players):
    return {p.id: stack.http.get(f"/players/{p.id}").body["rating"] for p in players}


def _settled(stack, players, games):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        served = _served(stack, players)
        if sum(r["games"] for r in served.values()) == 2 * games:
            return served
        time.sleep(0.1)
    return _served(stack, players)


def test_rated_terms_are_plain_terms_against_a_person(stack):
    alice = register(stack)
    for body in ({"rated": True, "opponent": "bot"}, {"rated": True, "start_scores": [3, 0]},
                 {"rated": True, "rules": {"turn_seconds": 10}}, {"rated": True, "rules": {"target": 3}}):
        refused = stack.http.post("/matches", body, token=alice.token)
        assert refused.status == 400 and refused.body["error"] == "INVALID_REQUEST", refused.body
        assert "rated" in refused.body["fields"]
    assert stack.http.post("/seeks", {"rated": True, "rules": {"target": 3}}, token=alice.token).status == 400
    seek = stack.http.post("/seeks", {"rated": False}, token=alice.token)
    assert seek.status == 201
    assert stack.http.post("/seeks", {"rated": True}, token=alice.token).body["error"] == "SEEK_OPEN"
    assert stack.http.request("DELETE", f"/seeks/{seek.body['id']}", token=alice.token).status == 204


def test_rated_matches_by_challenge_and_pairing_give_the_ratings_of_an_independent_fold(stack):
    rng = random.Random(25)
    stack.start_pairer()  # seeks of players rated apart pair once their window has widened
    players = [register(stack, "rated") for _ in range(4)]
    played = []
    for round_number in range(8):
        a, b = rng.sample(players, 2)
        match_id, seats = (_challenge if round_number % 2 else _paired)(stack, a, b)
        play_one_round_then_resign(stack, match_id, seats, rng.choice("AB"))
        played.append(match_id)
    rematch = stack.http.post(f"/matches/{played[-1]}/rematch", {}, token=seats["A"].token)
    assert rematch.status == 202 and "offer" in rematch.body
    again = stack.http.post(f"/matches/{played[-1]}/rematch", {}, token=seats["B"].token)
    assert again.status == 201 and again.body["rated"] is True and again.body["status"] == "playing"
    aborted = stack.http.post(f"/matches/{again.body['id']}/actions", {"type": "resign"}, token=seats["A"].token)
    assert aborted.status == 200  # resigned before round 1 was complete: aborted, never rated

    served = _settled(stack, players, len(played))
    expected = independent_fold([_recorded_result(stack, match_id) for match_id in played])
    for player in players:
        value, rd, sigma, _ = expected[player.id]
        rating = served[player.id]
        assert abs(rating["value"] - value) < 0.5 and abs(rating["rd"] - rd) < 0.5, (rating, expected[player.id])
        assert rating["provisional"] == (rating["rd"] >= 110)
        history = stack.http.get(f"/players/{player.id}/ratings?limit=100").body["ratings"]
        assert len(history) == rating["games"] and history[-1]["after"] == rating["value"]

    verified = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "verify"], env=stack.env, cwd=ROOT,
                              capture_output=True, timeout=120, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"{len(played)} rated result(s)" in verified.stdout

    rebuilt = subprocess.run([sys.executable, "-m", "services.cli", "rebuild", "--inline", "--grace-seconds", "0"],
                             env=stack.env, cwd=ROOT, capture_output=True, timeout=300, text=True)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert _served(stack, players) == served

    metrics = stack.http.get("/metrics").raw.decode()
    for name in ("truc_seeks_open", "truc_ratings_lag_results 0.0", "truc_pairing_wait_seconds_bucket",
                 'truc_pairings_total{rated="true"}', 'truc_rematches_total{outcome="made"}'):
        assert name in metrics, name


def _truc(stack, *args, timeout=60):
    url = f"http://{stack.http.host}:{stack.http.port}"
    return subprocess.run([sys.executable, "-m", "services.cli", *args, "--url", url, "--lang", "fi"],
                          env=stack.env, cwd=ROOT, capture_output=True, timeout=timeout, text=True)


def test_truc_seek_waits_until_paired_and_truc_leaderboard_lists_settled_players(stack):
    name = f"seeker-{random.Random().randrange(10**9)}"
    url = f"http://{stack.http.host}:{stack.http.port}"
    seeking = subprocess.Popen([sys.executable, "-m", "services.cli", "seek", "--unrated", "--name", name,
                                "--url", url, "--lang", "fi"], env=stack.env, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert "Etsitään vastustajaa" in seeking.stdout.readline()  # it has opened its seek
    other = register(stack, "other")
    assert stack.http.post("/seeks", {"rated": False}, token=other.token).status == 201
    out, _ = seeking.communicate(timeout=60)
    assert seeking.returncode == 0 and "Paritettu: peli" in out and f"--name {name} --join" in out

    board = _truc(stack, "leaderboard")
    rows = stack.http.get("/leaderboard").body["players"]
    assert board.returncode == 0
    assert (rows[0]["name"] in board.stdout) if rows else ("Kenelläkään ei ole" in board.stdout)


def test_truc_seek_ends_with_the_reason_when_its_seek_expires(stack):
    """A seek nobody answers expires (an API whose seeks last 2 s, and a pairer whose pass finds it
    expired): ``truc seek`` says so in the player's language and exits 1, not waiting for ever."""
    name = f"lonely-{random.Random().randrange(10**9)}"
    with stack.another_api("short-seeks-api", SEEK_SECONDS="2") as base:
        pairer = stack.start_pairer()
        try:
            done = subprocess.run([sys.executable, "-m", "services.cli", "seek", "--unrated", "--name", name,
                                   "--url", base, "--lang", "fr"], env=stack.env, cwd=ROOT, capture_output=True,
                                  timeout=60, text=True)
        finally:
            pairer.terminate()
            pairer.wait(10)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Recherche d’un adversaire" in done.stdout and "votre recherche a expiré" in done.stderr
