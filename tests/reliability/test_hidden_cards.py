"""No response of any kind shows a player's unplayed cards to anyone else before the match is won.

Random matches, human against human and human against the bot, are played over HTTP. At
every step the scanner reads what each audience can read - both seats, a spectator and a
registered stranger - from every endpoint: views, action responses, the event log,
replays, the live stream, the lobby, the players' match lists and the scoreboard. Each
document is checked against the match's own stream, which says which cards were secret
from whom at that version (see tests/reliability/secrets.py).
"""

from __future__ import annotations

import random
import re
import threading
from collections import Counter
from typing import Any

import pytest

from services.client import TrucClient
from shared.codec import decode
from shared.eventstore import RedisEventStore
from shared.rules import INITIAL, Seat, evolve, view
from tests.projector_support import append_in_batches, random_match
from tests.reliability.play import NEVER, RARE, Player, act, new_match, register
from tests.reliability.secrets import Audience, Leak, Secrets
from tests.reliability.stack import BOT_TOKEN, Stack

DEEP_SCAN_EVERY = 4  # steps between scans of the log, replays, lobby and scoreboard
MAX_STEPS = 3000


class Scanner:
    """Reads one match as every audience, from every endpoint, and collects the leaks."""

    def __init__(self, stack: Stack, match_id: str, tokens: dict[str, str | None], rng: random.Random) -> None:
        self.stack, self.match_id, self.tokens, self.rng = stack, match_id, tokens, rng
        self.store = RedisEventStore(stack.client())
        self.leaks: list[Leak] = []
        self.scanned: Counter = Counter()

    @staticmethod
    def audience(name: str) -> Audience:
        return name if name in ("A", "B") else None

    def secrets(self) -> Secrets:
        return Secrets(self.store.read(self.match_id))

    def get(self, path: str, name: str) -> Any:
        reply = self.stack.http.get(path, token=self.tokens[name])
        assert reply.status == 200, (path, name, reply.status, reply.body)
        self.scanned[re.sub(r"/(matches|players)/[^/?]+", r"/\1/{id}", path.split("?")[0])] += 1
        return reply.body

    def views(self, min_version: int) -> dict[str, dict[str, Any]]:
        """Every audience's view, at least at ``min_version``, each checked."""
        views = {name: self.get(f"/matches/{self.match_id}?min_version={min_version}&wait=5", name)
                 for name in self.tokens}
        secrets = self.secrets()
        for name, seen in views.items():
            self.leaks += secrets.view_leaks("view", self.audience(name), seen)
        return views

    def action(self, seat: str, body: dict[str, Any]) -> None:
        """The events an action answered, as its actor may see them."""
        self.scanned["POST /actions"] += 1
        self.leaks += self.secrets().event_leaks("action response", seat, body["events"], body["version"])

    def deep(self) -> None:
        """The log and a replay for every audience, and the match lists and scores."""
        version = self.store.version(self.match_id)
        logs, replays, lists = {}, {}, {}
        for name in self.tokens:
            logs[name] = self.get(f"/matches/{self.match_id}/events?limit=1000", name)["events"]
            replays[name] = self.get(f"/matches/{self.match_id}/replay?version={self.rng.randint(1, version)}", name)
        for path in ("/matches?status=playing&limit=200", "/scoreboard?limit=500",
                     *(f"/players/{player_id}/matches" for player_id in self.player_ids())):
            lists[path] = self.get(path, "spectator")
        # Read the truth after the documents: the bot may have moved meanwhile.
        secrets = self.secrets()
        for name, log in logs.items():
            self.leaks += secrets.event_leaks("events", self.audience(name), log, log[-1]["version"])
            if not secrets.won:  # a replay of a won match shows both hands, at any version
                self.leaks += secrets.view_leaks("replay", self.audience(name), replays[name])
        for path, document in lists.items():
            self.leaks += secrets.text_leaks(path, document, len(secrets.events))

    def player_ids(self) -> list[str]:
        return [seat["id"] for seat in self.get(f"/matches/{self.match_id}", "spectator")["players"].values()]


class LiveStreams:
    """One server-sent-event stream per audience, collecting every view until the match ends."""

    def __init__(self, stack: Stack, match_id: str, tokens: dict[str, str | None]) -> None:
        self.views: dict[str, list[dict[str, Any]]] = {name: [] for name in tokens}
        self.threads = [threading.Thread(target=self._follow, args=(stack.url, match_id, name, token), daemon=True)
                        for name, token in tokens.items()]
        for thread in self.threads:
            thread.start()

    def _follow(self, url: str, match_id: str, name: str, token: str | None) -> None:
        for seen in TrucClient(url, token, timeout=30).stream(match_id):
            self.views[name].append(seen)

    def leaks(self, secrets: Secrets) -> list[Leak]:
        for thread in self.threads:
            thread.join(30)
        assert all(views and views[-1]["status"] == "finished" for views in self.views.values()), "a stream stopped"
        return [leak for name, views in self.views.items() for view in views
                for leak in secrets.view_leaks("stream", Scanner.audience(name), view)]


def next_action(views: dict[str, dict[str, Any]], humans: set[str], rng: random.Random) -> tuple[str, dict] | None:
    """A random legal action of a human seat; None when only the bot has something to do."""
    choices = [(seat, action) for seat in humans for action in views[seat]["legal_actions"]
               if action["type"] not in NEVER]
    if not any(action["type"] not in ("fold", "propose_redeal") for _, action in choices):
        return None  # the other seat is to play or answer
    weights = [0.03 if action["type"] in RARE else 1.0 for _, action in choices]
    return rng.choices(choices, weights)[0]


def play_and_scan(stack: Stack, seed: int, against_bot: bool, start_scores: list[int]) -> tuple[list, Counter]:
    """Play one random match to its end, scanning every response; (leaks, responses scanned)."""
    rng = random.Random(seed)
    a, stranger = register(stack.http, "scan-a"), register(stack.http, "scan-c")
    b = None if against_bot else register(stack.http, "scan-b")
    options: dict[str, Any] = {"start_scores": start_scores, **({"opponent": "bot"} if against_bot else {})}
    match_id = new_match(stack.http, a, b, **options)
    seats: dict[str, Player | None] = {"A": a, "B": b}
    tokens = {"A": a.token, "B": BOT_TOKEN if against_bot else b.token, "spectator": None, "stranger": stranger.token}
    scanner, streams = Scanner(stack, match_id, tokens, rng), LiveStreams(stack, match_id, tokens)
    humans, version = ({"A"} if against_bot else {"A", "B"}), 3
    for step in range(MAX_STEPS):
        views = scanner.views(version)
        if views["spectator"]["status"] == "finished":
            break
        if step % DEEP_SCAN_EVERY == 0:
            scanner.deep()
        picked = next_action({seat: views[seat] for seat in humans}, humans, rng)
        if picked is None:
            version = views["A"]["version"] + 1  # wait for the bot's move
            continue
        seat, action = picked
        reply = act(stack.http, match_id, seats[seat], action, if_match=views[seat]["version"])
        if reply.status == 200:
            scanner.action(seat, reply.body)
            version = reply.body["version"]
        else:
            assert reply.status == 412, reply.body  # the bot moved first
    else:
        pytest.fail(f"match {match_id} did not end in {MAX_STEPS} steps")
    leaks = scanner.leaks + streams.leaks(scanner.secrets())
    scanner.scanned["GET /stream views"] += sum(map(len, streams.views.values()))
    return leaks, scanner.scanned


def scan_matches(stack: Stack, figures: dict, matches: int, start_scores: list[int]) -> None:
    leaks, scanned = [], Counter()
    for seed in range(matches):
        found, counted = play_and_scan(stack, seed, against_bot=seed % 2 == 1, start_scores=start_scores)
        leaks += found
        scanned += counted
    assert leaks == []
    figures.update(matches=matches, responses_scanned=sum(scanned.values()), leaks=0,
                   endpoints=len(scanned))


def test_the_scanner_sees_a_hand_shown_to_the_other_seat_and_nothing_in_honest_views(
    fake_redis: Any,
) -> None:
    store = RedisEventStore(fake_redis)
    append_in_batches(store, "m", random_match(7, "m"), random.Random(7))
    secrets, state = Secrets(store.read("m")), INITIAL
    for stored in store.read("m", limit=12):
        state = evolve(state, decode(stored))
    honest = {"id": "m", "version": 12, **view(state, Seat.B)}
    assert secrets.view_leaks("view", "B", honest) == []
    leaking = {**honest, "debug": {"hand_of_a": list(state.round.hand(Seat.A))}}
    assert {leak.card for leak in secrets.view_leaks("view", "B", leaking)} == set(state.round.hand(Seat.A))
    own = {**honest, **view(state, Seat.A), "debug": leaking["debug"]}
    assert secrets.view_leaks("view", "A", own) == []  # A may see its own hand


def test_no_response_shows_an_opponents_unplayed_cards_in_random_matches(shared_stack: Stack, figures: dict) -> None:
    scan_matches(shared_stack, figures, matches=6, start_scores=[8, 8])


@pytest.mark.soak
@pytest.mark.timeout(1800)
def test_no_response_shows_an_opponents_unplayed_cards_in_many_whole_matches(
    shared_stack: Stack, figures: dict,
) -> None:
    scan_matches(shared_stack, figures, matches=40, start_scores=[0, 0])
