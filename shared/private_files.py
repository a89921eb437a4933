"""Files that hold secrets or game data: created private, never through a symlink.

The embedded Redis's AOF holds every hand and every unrevealed seed; token files are
passwords. Each is created with its final mode in one step (``O_EXCL | O_NOFOLLOW``, mode
0600), so there is no moment where another user could read it, and a symlink planted in
its place is refused instead of followed.
"""
from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

PRIVATE_UMASK = 0o077  # what this process creates from now on: for its owner only
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) for its owner only; tighten it if it exists already."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.is_symlink():
        raise PermissionError(f"{path} is a symlink; refusing to keep private data there")
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def write_secret(path: Path, text: str) -> None:
    """Create ``path`` holding ``text``, mode 0600; FileExistsError if anything is there (a symlink too)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)


@contextlib.contextmanager
def private_output(path: Path, replace: bool = False) -> Iterator[BinaryIO]:
    """A new file at ``path``, mode 0600, to write; removed if the writing fails.

    Without ``replace``, FileExistsError if anything is there (a symlink too). With it, the
    file is written under a temporary name beside ``path`` (created the same way) and renamed
    over ``path`` once complete: whatever stood there (a symlink is replaced, not followed)
    is swapped for the whole new file at once, never truncated or left half written.
    """
    target = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp") if replace else path
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            yield file
        if replace:
            os.replace(target, path)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def read_secret(path: Path) -> str | None:
    """The stripped text of ``path``; None if there is none. A symlink is refused (OSError)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor) as file:
        return file.read().strip()


def secret_file(path: Path, make: Callable[[], str]) -> str:
    """The secret kept in ``path``, made by ``make()`` and written privately on first use."""
    existing = read_secret(path)
    if existing:
        return existing
    private_dir(path.parent)
    try:
        write_secret(path, make())
    except FileExistsError:
        pass  # another process made it first: use theirs
    return read_secret(path) or ""
