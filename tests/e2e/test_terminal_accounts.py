"""`truc login` and `truc matches` in a pseudo-terminal: a password asked unechoed, the session's token
kept for `truc play`, the player's matches listed and one resumed."""
from __future__ import annotations

import uuid

from tests.waiting import wait_until

from .conftest import Stack
from .test_terminal_client import Terminal

PASSWORD = "a long enough secret"


def test_a_player_logs_in_from_the_terminal_lists_their_matches_and_resumes_one(stack: Stack, tmp_path) -> None:
    name = f"term-{uuid.uuid4().hex[:8]}"
    assert stack.http.post("/players", {"name": name, "password": PASSWORD}).status == 201
    env = {**stack.env, "DATA_DIR": str(tmp_path), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    login = Terminal(["login", "--name", name], env)
    try:
        login.read_until(lambda screen: "Password:" in screen)
        login.press(PASSWORD + "\r")
        screen = login.read_until(lambda screen: "Logged in as" in screen)
        assert PASSWORD not in screen  # never echoed
    finally:
        login.close()
    token = (tmp_path / "players" / f"{name}.token").read_text().strip()
    sessions = stack.http.get("/players/me/sessions", token=token).body["sessions"]
    assert len(sessions) == 2 and [line["current"] for line in sessions] == [False, True]

    match_id = stack.http.post("/matches", {"opponent": "bot"}, token=token).body["id"]
    wait_until(lambda: any(line["id"] == match_id for line in
                           stack.http.get("/players/me/matches", token=token).body["matches"]),
               timeout=15, what="the match to be projected")
    listing = Terminal(["matches", "--name", name], env)
    try:
        listing.read_until(lambda screen: match_id in screen and "--resume" in screen)
    finally:
        listing.close()
    resumed = Terminal(["matches", "--name", name, "--resume", match_id], env)
    try:
        resumed.read_until(lambda screen: "Le Truc · match" in screen and "quit" in screen)
        resumed.press("q")
    finally:
        resumed.close()
