"""The bot's deciding processes die with the bot, however it dies: none keeps running for nobody."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]

# A bot's pool, one decision made (so a worker runs), the worker's pid printed, then waiting.
_BOT = """
import os, time
from services.bots import decisions
pool = decisions.pool(1)
print(pool.submit(os.getpid).result(), flush=True)
time.sleep(120)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped has stopped running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_bot_killed_leaves_no_deciding_process_behind(how: signal.Signals) -> None:
    bot, worker = subprocess.Popen([sys.executable, "-c", _BOT], cwd=ROOT, stdout=subprocess.PIPE, text=True), None
    try:
        worker = int(bot.stdout.readline())
        assert worker != bot.pid and _running(worker)
        bot.send_signal(how)
        bot.wait(10)
        wait_until(lambda: not _running(worker), what=f"the deciding process {worker} gone with the bot")
    finally:
        bot.kill()
        bot.wait(10)
        if worker is not None and _running(worker):
            os.kill(worker, signal.SIGKILL)
