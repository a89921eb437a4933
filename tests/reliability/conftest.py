"""Fixtures of the reliability suite: running systems that the tests break on purpose.

Every test here is marked ``reliability``; the longer variants are also marked ``soak``
and run only under ``make soak`` (``pytest -m soak``). Each test records what it tried
and what it saw in ``figures``, printed at the end of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.stack import Stack

_HERE = Path(__file__).parent
_FIGURES: dict[str, dict[str, Any]] = {}

StartStack = Callable[..., Stack]


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this folder ``reliability``."""
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(pytest.mark.reliability)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the figures the tests recorded: what was tried, and what survived."""
    if not _FIGURES:
        return
    terminalreporter.section("reliability figures")
    for test, figures in _FIGURES.items():
        shown = ", ".join(f"{name}={value}" for name, value in figures.items())
        terminalreporter.write_line(f"{test}: {shown}")


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> dict[str, Any]:
    """A dict the test fills with its figures (races run, kills survived, events lost, ...)."""
    return _FIGURES.setdefault(request.node.name, {})


@pytest.fixture
def start_stack(tmp_path: Path) -> Iterator[StartStack]:
    """Start stacks of their own (Redis, API, workers, bot) that the test may break; closed after it."""
    started: list[Stack] = []

    def start(workers: int = 2, bot: bool = False, **options: Any) -> Stack:
        stack = Stack(tmp_path / f"stack-{len(started)}", **options)
        started.append(stack)
        return stack.start(workers=workers, bot=bot)

    yield start
    for stack in started:
        stack.close()


@pytest.fixture(scope="session")
def shared_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack with two workers and the bot, for the tests that only play on it (never break it)."""
    stack = Stack(tmp_path_factory.mktemp("reliability"))
    try:
        yield stack.start(workers=2, bot=True)
    finally:
        stack.close()
