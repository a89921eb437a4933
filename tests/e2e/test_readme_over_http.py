"""The README's first match, its shell block run as written against the running services.

Only the address (the stack's port for `localhost:8000`) and the names (unique per run: the
stack is shared) are changed; curl and jq are the reader's.
"""
from __future__ import annotations

import json
import re
import secrets
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def first_match_block() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## A first match\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)
    return block


def test_the_first_match_block_is_five_lines_that_use_the_default_address() -> None:
    lines = first_match_block().strip().splitlines()
    assert len(lines) == 5
    assert all("localhost:8000/" in line for line in lines)
    assert '"turn_seconds":600' in lines[2]  # its clock does not run out while one reads


def test_the_readmes_first_match_plays_a_card(stack) -> None:
    alice, bob = (f"{who}-{secrets.token_hex(4)}" for who in ("alice", "bob"))
    script = (first_match_block()
              .replace("localhost:8000/", f"127.0.0.1:{stack.http.port}/")
              .replace('"name":"alice"', f'"name":"{alice}"').replace('"name":"bob"', f'"name":"{bob}"'))
    shown = subprocess.run(["bash", "-euo", "pipefail", "-c", script + 'printf "%s\\n" "$M" "$CARD"\n'],
                           capture_output=True, text=True, timeout=60)

    assert shown.returncode == 0, shown.stderr
    printed, match_id, card = shown.stdout.rsplit("\n", 3)[:3]
    answer = json.loads(printed)  # the last line's `| jq`: the action's answer
    assert answer["version"] == 4
    assert [(event["type"], event["data"]["seat"], event["data"]["card"]) for event in answer["events"]] == [
        ("card_played", "B", card)]
    view = stack.http.get(f"/matches/{match_id}?min_version=4&wait=10").body
    assert view["version"] >= 4 and view["status"] == "playing"
    assert {view["players"]["A"]["name"], view["players"]["B"]["name"]} == {alice, bob}
    assert view["players"]["A"]["name"] == alice
    assert view["rules"]["turn_seconds"] == 600 and view["clock"]["turn_seconds"] == 600
    assert view["clock"]["seat"] == "A"  # alice answers bob's card: the clock is hers now
    assert view["round"]["tricks"][0]["cards"]["B"] == card
