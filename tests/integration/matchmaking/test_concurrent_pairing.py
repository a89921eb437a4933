"""Many seekers at once, on a real redis-server, with several app instances (as several API
processes) each pairing inline and three pairers passing: no seek is paired twice, no player
sits in two paired matches or across from themself, and every seek is paired."""
from __future__ import annotations

import random
import threading
from collections import Counter

from services.api import create_app
from services.api.app import latest
from services.api.pairer import pair_until
from shared.config import Config
from shared.rules import Rules


def test_many_concurrent_seekers_are_each_paired_once(redis_server, redis_client, tmp_path) -> None:
    config = Config.from_env({"REDIS_URL": redis_server.url, "DATA_DIR": str(tmp_path), "RATE_LIMITS": "off",
                              "METRICS": "off"})
    apps = [create_app(config).extensions["truc"] for _ in range(3)]
    rng = random.Random(9)
    players = [apps[0].players.register(f"seeker{n}")[0] for n in range(240)]
    ratings = {player.id: rng.gauss(1500, 400) for player in players}
    told: list[dict] = []
    lock = threading.Lock()
    for ctx in apps:
        ctx.matchmaker.rating_of = lambda player_id: ratings[player_id]
        original = ctx.matchmaker.tell

        def tell(notices, original=original):
            with lock:
                told.extend(n.data | {"player": n.player_id} for n in notices if n.kind == "paired")
            return original(notices)

        ctx.matchmaker.tell = tell
    stop = threading.Event()
    pairers = [threading.Thread(target=pair_until, args=(ctx.matchmaker, stop)) for ctx in apps]
    seekers = [threading.Thread(target=lambda part, ctx: [ctx.matchmaker.seek(p, True, Rules()) for p in part],
                                args=(players[n::12], apps[n % 3])) for n in range(12)]
    for thread in pairers + seekers:
        thread.start()
    for thread in seekers:
        thread.join()
    for _ in range(600):  # the last seeks pair once their windows widened (30 s at most)
        if len(told) >= len(players):
            break
        stop.wait(0.1)
    stop.set()
    for thread in pairers:
        thread.join()

    assert len(told) == len(players)
    assert Counter(notice["seek_id"] for notice in told).most_common(1)[0][1] == 1
    seated = Counter()
    for match_id in {notice["match_id"] for notice in told}:
        a, b = latest(apps[0].matches, match_id).state.players
        assert a.id != b.id
        seated.update([a.id, b.id])
    assert set(seated) == {p.id for p in players} and max(seated.values()) == 1
