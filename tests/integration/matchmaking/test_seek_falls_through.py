"""A pairing whose match cannot be made, on a real redis-server: a player who sat down in
``MAX_PLAYING`` matches after seeking is told their seek was dropped (TOO_MANY_MATCHES), and the
other player's seek is open again, as old as it was, and pairs next with someone else."""
from __future__ import annotations

import orjson
import pytest

from services.api import create_app
from shared import keys
from shared.config import Config
from shared.eventstore.schema import iso_from_ms
from shared.keys import seeks as seek_keys


class Lobby:
    """Players over HTTP on an app with the cap on unfinished matches at 2."""

    def __init__(self, redis_url: str, client, data_dir: str) -> None:
        config = Config.from_env({"REDIS_URL": redis_url, "DATA_DIR": data_dir, "METRICS": "off",
                                  "MAX_PLAYING": "2", "REGISTRATIONS_PER_HOUR": "100"})
        self.redis, self.http = client, create_app(config).test_client()

    def player(self, name: str) -> tuple[str, dict]:
        body = self.http.post("/players", json={"name": name}).get_json()
        return body["id"], {"Authorization": f"Bearer {body['token']}"}

    def seek(self, auth: dict) -> dict:
        answer = self.http.post("/seeks", json={"rated": True}, headers=auth)
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()

    def told(self, player_id: str, kind: str) -> list[dict]:
        return [orjson.loads(fields[b"data"]) for _, fields in self.redis.xrange(keys.player_feed(player_id))
                if fields[b"type"] == kind.encode()]

    def open_seek(self, player_id: str) -> dict | None:
        seek_id = self.redis.hget(seek_keys.SEEKERS, player_id)
        raw = seek_id and self.redis.hget(seek_keys.SEEKS, seek_id)
        return orjson.loads(raw) | {"id": seek_id.decode()} if raw else None


@pytest.fixture
def lobby(redis_server, redis_client, tmp_path) -> Lobby:
    return Lobby(redis_server.url, redis_client, str(tmp_path))


def test_a_seeker_capped_since_seeking_is_told_and_the_other_seek_pairs_next(lobby: Lobby) -> None:
    (ana, ana_auth), (ben, ben_auth), (cai, cai_auth) = (lobby.player(name) for name in ("ana", "ben", "cai"))
    anas = lobby.seek(ana_auth)
    for _ in range(2):  # ana sits down in MAX_PLAYING matches while her seek waits
        assert lobby.http.post("/matches", json={}, headers=ana_auth).status_code == 201

    bens = lobby.seek(ben_auth)  # the pass pairs ben with ana: her cap refuses the match

    assert lobby.told(ana, "seek") == [{"seek_id": anas["id"], "status": "dropped", "error": "TOO_MANY_MATCHES"}]
    assert lobby.told(ana, "paired") == [] and lobby.told(ben, "paired") == [] and lobby.told(ben, "seek") == []
    reopened = lobby.open_seek(ben)
    assert reopened["id"] == bens["id"] and iso_from_ms(reopened["expires"]) == bens["expires_at"]  # as old as it was
    assert lobby.open_seek(ana) is None
    again = lobby.http.post("/seeks", json={"rated": True}, headers=ben_auth)
    assert again.status_code == 409 and again.get_json()["error"] == "SEEK_OPEN"

    lobby.seek(cai_auth)

    (to_ben,), (to_cai,) = lobby.told(ben, "paired"), lobby.told(cai, "paired")
    assert to_ben["match_id"] == to_cai["match_id"]
    assert to_ben["seek_id"] == bens["id"] and to_ben["seat"] == "A"  # the older seek: ben waited longer
    assert lobby.open_seek(ben) is None and lobby.told(ana, "paired") == []
    assert lobby.redis.hlen(seek_keys.PAIRINGS) == 0


def test_a_reopened_seek_that_expired_meanwhile_is_told_expired(lobby: Lobby, monkeypatch) -> None:
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    lobby.seek(ana_auth)
    for _ in range(2):
        lobby.http.post("/matches", json={}, headers=ana_auth)
    matchmaker = lobby.http.application.extensions["truc"].matchmaker
    pairings: list = []
    monkeypatch.setattr(matchmaker, "make", lambda made: pairings.append(made) or False)  # made later
    bens = lobby.seek(ben_auth)
    monkeypatch.undo()
    (pairing,) = pairings
    pool = matchmaker.pool
    monkeypatch.setattr(pool, "_clock", lambda: pairing.b["expires"] + 1)

    assert matchmaker.make(pairing) is False

    assert lobby.told(ben, "seek") == [{"seek_id": bens["id"], "status": "expired"}]
    assert lobby.open_seek(ben) is None and lobby.told(ana, "seek")[0]["status"] == "dropped"


def test_a_maker_that_stalled_past_the_fall_through_creates_nothing(lobby: Lobby, monkeypatch) -> None:
    """The pairing fell through (ana capped) and ben's seek is open again; the maker that had it
    before, resuming once ana may sit down again, must not seat ben in the match as well."""
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    lobby.seek(ana_auth)
    matchmaker = lobby.http.application.extensions["truc"].matchmaker
    pairings: list = []
    monkeypatch.setattr(matchmaker, "make", lambda made: pairings.append(made) or False)  # its maker stalls
    bens = lobby.seek(ben_auth)
    monkeypatch.undo()
    (pairing,) = pairings
    sat = [lobby.http.post("/matches", json={}, headers=ana_auth).get_json()["id"] for _ in range(2)]
    assert matchmaker.make(pairing) is False  # another process: ana is capped, the pairing falls through
    assert lobby.open_seek(ben)["id"] == bens["id"]
    cancelled = lobby.http.post(f"/matches/{sat[0]}/actions", json={"type": "cancel"}, headers=ana_auth)
    assert cancelled.status_code == 200  # ana may sit down again

    assert matchmaker.make(pairing) is False  # the stalled maker resumes

    assert lobby.redis.xlen(keys.match_events(pairing.match_id)) == 0
    assert lobby.told(ben, "paired") == [] and lobby.told(ana, "paired") == []
    assert lobby.open_seek(ben)["id"] == bens["id"]  # open, and in no match


def test_a_pairing_voided_by_a_process_that_died_is_let_fall_through_by_the_next(lobby: Lobby, monkeypatch) -> None:
    """The process that voided the pairing's match died before reopening the seeks: the next maker
    (a pairer's recovery) finds the void and reopens them, once."""
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    anas = lobby.seek(ana_auth)
    matchmaker = lobby.http.application.extensions["truc"].matchmaker
    pairings: list = []
    monkeypatch.setattr(matchmaker, "make", lambda made: pairings.append(made) or False)
    bens = lobby.seek(ben_auth)
    monkeypatch.undo()
    (pairing,) = pairings
    sat = [lobby.http.post("/matches", json={}, headers=ana_auth).get_json()["id"] for _ in range(2)]

    def dies(*_):
        raise SystemExit("the process died")

    monkeypatch.setattr(matchmaker.pool, "reopen", dies)
    with pytest.raises(SystemExit):
        matchmaker.make(pairing)  # voided, nothing reopened
    monkeypatch.undo()
    assert lobby.open_seek(ben) is None
    lobby.http.post(f"/matches/{sat[0]}/actions", json={"type": "cancel"}, headers=ana_auth)

    assert matchmaker.make(pairing) is False  # the recovery

    assert lobby.redis.xlen(keys.match_events(pairing.match_id)) == 0 and lobby.redis.hlen(seek_keys.PAIRINGS) == 0
    assert lobby.open_seek(ben)["id"] == bens["id"] and lobby.open_seek(ana)["id"] == anas["id"]
    assert lobby.told(ben, "paired") == [] and lobby.told(ana, "paired") == []
