"""`truc play` in a pseudo-terminal: a whole match against the bot, driven by keystrokes."""
import os
import pty
import re
import select
import signal
import sys
import time
import uuid

from .conftest import ROOT

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the terminal client
            os.chdir(ROOT)
            os.execvpe(sys.executable, [sys.executable, "-m", "services.cli", *args], env)
        self.screen = ""

    def read_until(self, predicate, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while not predicate(self.screen):
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed what was expected:\n{self.screen[-2000:]}")
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.screen += ANSI.sub(b"", os.read(self.fd, 65536)).decode(errors="replace")
                except OSError:  # the client exited
                    break
        return self.screen

    def press(self, key: str) -> None:
        os.write(self.fd, key.encode())

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


RULE = "Le Truc · match"


_TICKING = re.compile(r"\d+ s left")


def _last_render(screen: str) -> str:
    return screen[screen.rindex(RULE):] if RULE in screen else ""


def _complete(screen: str) -> bool:
    block = _last_render(screen)
    return "quit" in block or "Match over" in block


def _my_move(block: str) -> bool:
    asked = "they asked:" in block
    return asked or ("(your turn)" in block and "you asked:" not in block)


def test_a_whole_match_against_the_bot_in_the_terminal(stack):
    env = {**stack.env, "TERM": "xterm", "COLUMNS": "120", "LINES": "40",
           "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}  # English, whatever the machine speaks
    terminal = Terminal(["play", "--name", f"term-{uuid.uuid4().hex[:8]}", "--bot"], env)
    try:
        handled, moves, last_state = 0, 0, ""
        while True:
            screen = terminal.read_until(lambda s, n=handled: s.count(RULE) > n and _complete(s), timeout=30)
            handled = screen.count(RULE)
            block = _last_render(screen)
            if "Match over" in block:
                break
            state = _TICKING.sub("", block)  # the table is redrawn in place each second as its clock ticks
            if state == last_state:
                continue
            last_state = state
            if not _my_move(block):
                continue  # the bot's move: the next view arrives by itself
            line = block[block.index("Your move:"):].splitlines()[0]
            keys = [k for k in re.findall(r"\[(\w)\]", line) if k != "q"]
            cards = [k for k in keys if k.isdigit()]
            terminal.press(cards[0] if cards else next((k for k in ("a", "r", "x") if k in keys), keys[0]))
            moves += 1
            assert moves < 400, "the match did not end"
        assert re.search(r"Match over: you (won|lost) \d+–\d+", terminal.screen)
        assert "Round 1" in terminal.screen and "Your hand:" in terminal.screen and moves > 3
    finally:
        terminal.close()
