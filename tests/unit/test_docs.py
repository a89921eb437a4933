"""The README and docs/ checked against the tree: links, settings, commands and paths they name.

The README's first match is run for real by tests/e2e/test_readme_over_http.py.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_ROOTS = ("shared", "services")  # where a setting may be read
SETTINGS_PAGE = ROOT / "docs" / "operations.md"

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.M)
_SETTING = re.compile(r"^[A-Z][A-Z0-9_]*$")
_PATH = re.compile(r"(?<![\w/.:$-])((?:services|shared|tests|bench|docs|deploy)/[\w./-]*)")


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _prose(text: str) -> str:
    """The page without its fenced blocks (a shell comment is not a heading, a `[x](y)` there no link)."""
    return _FENCE.sub("", text)


def _code(text: str) -> str:
    """What the page shows as code: its fenced blocks and inline spans."""
    return "\n".join(_FENCE.findall(text) + _SPAN.findall(_prose(text)))


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    plain = re.sub(r"[`*_]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)).strip().lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_anchor(heading) for heading in _HEADING.findall(_prose(page.read_text()))}


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_relative_link_resolves_to_a_file_and_its_heading(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no such heading in {file.relative_to(ROOT)}")
    assert broken == []


def test_the_link_check_finds_links_and_anchors() -> None:
    readme = ROOT / "README.md"
    assert "docs/operations.md#settings" in _LINK.findall(readme.read_text())
    assert "settings" in _anchors(SETTINGS_PAGE)
    assert _anchor("Time: clocks, resignation and expiry") == "time-clocks-resignation-and-expiry"
    assert _anchor("The player's own stream") == "the-players-own-stream"
    assert _anchor("Live streams (figure 7)") == "live-streams-figure-7"


def test_every_page_is_linked_from_the_readme() -> None:
    linked = {target.partition("#")[0] for target in _LINK.findall((ROOT / "README.md").read_text())}
    assert {f"docs/{page.name}" for page in PAGES[1:]} <= linked


def test_the_readme_is_read_in_two_minutes() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    first_screen = "\n".join(readme.splitlines()[:25])
    assert "make run" in first_screen and "make test" in first_screen


# --- settings: what the code reads is what docs/operations.md documents ---------------------


def _is_environment(node: ast.expr) -> bool:
    """``os.environ``, or a mapping named ``env``/``environ`` (the settings' parameter)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ" and isinstance(node.value, ast.Name) and node.value.id == "os"
    return isinstance(node, ast.Name) and node.id in ("env", "environ")


def _constants(tree: ast.Module) -> dict[str, list[str]]:
    """Names bound to strings: module constants, and loop variables over a tuple of strings."""
    bound: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = [node.value.value]
        looped = isinstance(node, ast.For) and isinstance(node.target, ast.Name)
        if looped and isinstance(node.iter, ast.Tuple | ast.List):
            values = [item.value for item in node.iter.elts if isinstance(item, ast.Constant)]
            bound[node.target.id] = [value for value in values if isinstance(value, str)]
    return bound


def _names(node: ast.expr, constants: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return constants.get(node.id, [])
    return []


def read_settings(source: str) -> set[str]:
    """Every environment variable ``source`` reads: ``env.get(X)``, ``env[X]``, ``os.getenv(X)``."""
    tree = ast.parse(source)
    constants, read = _constants(tree), set()
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr == "get" and _is_environment(node.func.value):
                key = node.args[0]
            elif node.func.attr == "getenv" and isinstance(node.func.value, ast.Name) and node.func.value.id == "os":
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environment(node.value):
            key = node.slice
        if key is not None:
            read.update(name for name in _names(key, constants) if _SETTING.match(name))
    return read


def _read_by_the_code() -> set[str]:
    files = [path for root in CODE_ROOTS for path in sorted((ROOT / root).rglob("*.py"))]
    return {name for path in files for name in read_settings(path.read_text())}


def documented_settings(page: str) -> set[str]:
    """The names in the first column of the page's settings table."""
    table = page.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    return set(re.findall(r"`([A-Z][A-Z0-9_]*)`", "\n".join(rows)))


def test_the_settings_scan_finds_every_way_a_variable_is_read() -> None:
    source = '''
import os
FLAG = "FLAG_NAME"
def f(env, environ):
    env.get("PLAIN"); env["INDEXED"]; os.environ.get(FLAG); os.getenv("GOT")
    for name in ("FIRST", "SECOND"):
        environ.get(name)
    os.environ["WRITTEN"] = "1"
    request.environ.get("REMOTE_ADDR"); environ.get("gunicorn.socket")
'''
    assert read_settings(source) == {"PLAIN", "INDEXED", "FLAG_NAME", "GOT", "FIRST", "SECOND"}
    assert {"REDIS_URL", "BOT_TOKEN", "CATCH_UP_LANES", "PROMETHEUS_MULTIPROC_DIR", "LANG"} <= _read_by_the_code()


def test_every_setting_the_code_reads_is_documented_and_every_documented_one_is_read() -> None:
    read, documented = _read_by_the_code(), documented_settings(SETTINGS_PAGE.read_text())
    assert read - documented == set(), "read by shared/ or services/, missing from docs/operations.md"
    assert documented - read == set(), "in docs/operations.md's settings table, read nowhere"


def test_the_readme_names_only_documented_settings_with_their_defaults() -> None:
    readme, operations = (ROOT / "README.md").read_text(), SETTINGS_PAGE.read_text()
    table = readme.split("## Settings in brief", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows
    full = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in operations.splitlines()
            if line.startswith("| `")}
    for row in rows:
        name, default = row.split("|")[1].strip(), row.split("|")[2].strip()
        assert name in full, name
        if name != "`REDIS_URL`":  # the full table says how the embedded server is reached
            assert default == full[name], name


# --- commands and paths the pages name --------------------------------------------------------


def _makefile_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


def _truc_commands() -> set[str]:
    shown = subprocess.run([sys.executable, "-m", "services.cli", "--help"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    listing = shown.split("Commands:", 1)[1]
    return set(re.findall(r"^  ([a-z][\w-]*)", listing, re.M))


def _named(pattern: str) -> dict[str, set[str]]:
    return {_page_id(page): set(re.findall(pattern, _code(page.read_text()))) for page in PAGES}


def test_every_make_target_named_in_the_docs_is_in_the_makefile() -> None:
    named = _named(r"(?<![\w$/.-])make ([a-z][\w-]*)")
    assert "run" in named["README.md"] and "bench" in named["docs/operations.md"]  # the pattern finds them
    targets = _makefile_targets()
    assert {page: sorted(names - targets) for page, names in named.items() if names - targets} == {}


def test_every_truc_command_named_in_the_docs_is_one_truc_has() -> None:
    named = _named(r"(?<![\w$.-])truc ([a-z][\w-]*)")
    assert {"export", "import", "audit", "rebuild", "unpark", "replay", "play"} <= named["docs/operations.md"]
    commands = _truc_commands()
    assert {page: sorted(names - commands) for page, names in named.items() if names - commands} == {}


def _exists(named: str) -> bool:
    """A file or folder, or a module named without ``.py`` (``shared/keys``: a module or a package)."""
    path = ROOT / named.rstrip("/")
    return path.exists() or path.with_name(path.name + ".py").exists()


def test_every_path_named_in_the_docs_exists() -> None:
    missing = {}
    for page in PAGES:
        named = {match.rstrip(".,;:") for match in _PATH.findall(page.read_text())}
        gone = sorted(name for name in named if not _exists(name))
        if gone:
            missing[_page_id(page)] = gone
    assert missing == {}


def test_the_path_check_reads_paths_and_not_urls() -> None:
    assert _PATH.findall("see `shared/fold.py`, tests/e2e/ and http://x/docs/y or :8000/docs") == [
        "shared/fold.py", "tests/e2e/"]
    assert _exists("shared/rules/") and _exists("shared/config") and not _exists("shared/no_such_module")
