"""The house's shape, read from the code's own imports: the services meet only in shared/.

- the rules engine imports only the standard library;
- shared/ imports nothing of services/ or bench/;
- the API, the projector, the bots and the CLI import nothing from one another (the bots
  and the CLI may use the public HTTP client, ``services.client``; the CLI, an operator's
  tool that rebuilds, imports and unparks in its own process, the projector's public face,
  ``services.projector.operations``; the projector's and the archiver's workers share one RQ
  worker base, ``services.prompt_workers``);
- shared/ imports no RQ: queueing is the services' business, the job names are plain strings;
- no module outside the adapters and their factories asks which adapter it holds
  (``isinstance(x, RedisEventStore)``...);
- no import circle anywhere in shared/, services/ and bench/.
"""
from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("api", "projector", "archiver", "bots", "cli")
PUBLIC_CLIENT = "services.client"
WORKER_BASE = "services.prompt_workers"  # the RQ worker base the projector and the archiver share (no rq in shared/)
PUBLIC_OPERATIONS = "services.projector.operations"  # what the operator's CLI runs of the projector


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for top in ("shared", "services", "bench") for path in (ROOT / top).rglob("*.py")
    }


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports, at any depth of its code, relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield submodule if submodule in MODULES else base


def _project_imports(module: str) -> set[str]:
    ours = ("shared", "services", "bench")
    return {name for name in _imported(module, MODULES[module]) if name.split(".")[0] in ours}


def _service_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "services" and len(parts) > 1 and parts[1] in SERVICES else None


def test_the_rules_engine_imports_only_the_standard_library_and_itself() -> None:
    strangers = {
        (module, name) for module in MODULES if module.startswith("shared.rules")
        for name in _imported(module, MODULES[module])
        if not name.startswith("shared.rules") and name.split(".")[0] not in sys.stdlib_module_names
        and name != "__future__"
    }
    assert strangers == set()


def test_shared_imports_nothing_of_the_services_or_the_benchmarks() -> None:
    upward = {
        (module, name) for module in MODULES if module.startswith("shared")
        for name in _project_imports(module) if not name.startswith("shared")
    }
    assert upward == set()


def test_the_services_meet_only_in_shared() -> None:
    crossings = set()
    for module in MODULES:
        own = _service_of(module)
        if own is None:
            continue
        for name in _project_imports(module):
            other = _service_of(name)
            if name.startswith("services") and other != own and not (
                name == PUBLIC_CLIENT and own in ("bots", "cli")
            ) and not (name == PUBLIC_OPERATIONS and own == "cli") and not (
                name == WORKER_BASE and own in ("projector", "archiver")
            ):
                crossings.add((module, name))
    assert crossings == set()


def test_shared_imports_no_rq() -> None:
    queueing = {
        (module, name) for module in MODULES if module.startswith("shared")
        for name in _imported(module, MODULES[module]) if name.split(".")[0] == "rq"
    }
    assert queueing == set()


# The adapters' types, and the modules allowed to name them in an isinstance: the adapters
# themselves and the factories that build them. Anywhere else, a use case would be asking
# which adapter it holds: what differs between adapters is the adapter's business.
ADAPTER_TYPES = {
    "shared.eventstore.redis_store": ["RedisEventStore"], "shared.eventstore.memory": ["InMemoryEventStore"],
    "shared.eventstore.redis_marks": ["RedisProjectionMarks"],
    "shared.readmodels.served": ["ReadModels"], "shared.readmodels.writes": ["GenerationModels"],
    "shared.readmodels.memory": ["InMemoryGenerationModels"],
    "shared.readmodels.memory_served": ["InMemoryReadModels", "InMemoryParkedMatches", "InMemoryClocks",
                                        "InMemoryFeeds"],
    "shared.readmodels.parked": ["ParkedMatches"], "shared.readmodels.clocks": ["Clocks"],
    "shared.readmodels.player_feeds": ["PlayerFeeds"], "shared.readmodels.scoreboard": ["Scoreboard"],
    "redis": ["Redis", "RedisCluster"], "fakeredis": ["FakeRedis", "FakeStrictRedis"],
}
ADAPTER_NAMES = {name for names in ADAPTER_TYPES.values() for name in names}
ADAPTER_MODULES = ("shared.eventstore", "shared.readmodels", "shared.connect", "shared.lean_redis")


def _adapter_type_checks(module: str, path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            for kind in kinds:
                name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")
                if name in ADAPTER_NAMES:
                    yield f"{module}:{node.lineno} isinstance(..., {name})"


def test_no_use_case_asks_which_adapter_it_holds() -> None:
    asking = [
        found for module, path in MODULES.items() if not module.startswith(ADAPTER_MODULES)
        for found in _adapter_type_checks(module, path)
    ]
    assert asking == []


def test_the_adapter_check_finds_an_isinstance_of_an_adapter(tmp_path: Path) -> None:
    use_case = tmp_path / "use_case.py"
    use_case.write_text("def f(store):\n    return isinstance(store, (int, eventstore.RedisEventStore))\n")
    assert list(_adapter_type_checks("use_case", use_case)) == ["use_case:2 isinstance(..., RedisEventStore)"]


def test_the_adapter_check_finds_the_question_the_catch_up_asked_before_its_port(tmp_path: Path) -> None:
    # The catch-up as it was: a use case asking which event store and which Redis client it holds.
    real = MODULES["services.projector.catchup.catching_up"].read_text()
    asking = real + (
        "\n\ndef _fold_new(store, readmodels):\n"
        "    one_node = isinstance(store, RedisEventStore) and store.client is readmodels.client\n"
        "    return one_node and not isinstance(readmodels.client, redis.cluster.RedisCluster)\n"
    )
    lines = real.count("\n") + 3
    (tmp_path / "catching_up.py").write_text(asking)
    assert list(_adapter_type_checks("catching_up", tmp_path / "catching_up.py")) == [
        f"catching_up:{lines + 1} isinstance(..., RedisEventStore)",
        f"catching_up:{lines + 2} isinstance(..., RedisCluster)",
    ]


def test_every_adapter_type_the_check_looks_for_is_a_class_of_its_module() -> None:
    # A renamed adapter would blind the check: each name must still be a class where it is said to be.
    for module, names in ADAPTER_TYPES.items():
        imported = __import__(module, fromlist=names)
        assert all(isinstance(getattr(imported, name, None), type) for name in names), module


def test_every_adapter_class_of_the_stores_is_looked_for() -> None:
    # The classes in the stores' adapter modules that hold a client or the data: none left out.
    for module in ADAPTER_TYPES:
        if module in MODULES and module.endswith(("memory", "memory_served", "redis_store", "writes", "served")):
            tree = ast.parse(MODULES[module].read_text())
            classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)
                       and not node.name.endswith("Error") and not node.name.startswith("_")}
            assert classes <= ADAPTER_NAMES, (module, classes - ADAPTER_NAMES)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_round_a_circle() -> None:
    graph = {module: {name for name in _project_imports(module) if name in MODULES} for module in MODULES}
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Modules are split by meaning, not by a count of lines (STYLE.md 13): no cap on a module's
# length, which only taught modules to stop at its last line. A function still reads at a glance.
MAX_FUNCTION_LINES = 40


def test_functions_stay_short() -> None:
    too_long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append((f"{module}.{node.name}", length))
    assert too_long == []


# A base name shared by two modules (or packages) of shared/ and services/ is allowed only here,
# for the same role in parallel packages; every other name says what its one module holds. A
# package goes by its folder's name (its __init__.py is never a repeat of another's).
SAME_ROLE = {
    "__main__": "every runnable package's entry point",
    "health": "each deployable's /health (services/api, services/projector): the same question, asked of each",
    "port": "each store's port (shared/eventstore, shared/readmodels): the contract its adapters pass",
    "memory": "each store's in-memory adapter (shared/eventstore, shared/readmodels), beside its Redis one",
}


def _base_names() -> dict[str, list[str]]:
    owners: dict[str, list[str]] = {}
    for path in sorted(p for top in ("shared", "services") for p in (ROOT / top).rglob("*.py")):
        named = path.parent if path.name == "__init__.py" else path
        owners.setdefault(named.stem, []).append(str(path.relative_to(ROOT)))
    return owners


def test_no_two_modules_share_a_base_name_unless_they_play_the_same_role() -> None:
    repeated = {name: paths for name, paths in _base_names().items() if len(paths) > 1 and name not in SAME_ROLE}
    assert repeated == {}


def test_the_same_role_list_names_only_repeated_names() -> None:
    assert {name for name in SAME_ROLE if len(_base_names().get(name, ())) < 2} == set()


def _spells_a_key(node: ast.AST) -> bool:
    """A string literal, or an f-string, that begins a project key: ``"truc:..."`` or ``f"{PREFIX}:..."``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.startswith("truc:")
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        return _spells_a_key(first) or (
            isinstance(first, ast.FormattedValue) and isinstance(first.value, ast.Name | ast.Attribute)
            and (getattr(first.value, "id", None) or getattr(first.value, "attr", None)) == "PREFIX"
        )
    return False


def _keys_spelt_outside_the_keys_package() -> set[str]:
    return {
        f"{module}:{node.lineno}" for module, path in MODULES.items() if not module.startswith("shared.keys")
        for node in ast.walk(ast.parse(path.read_text())) if _spells_a_key(node)
    }


def test_every_redis_key_is_built_in_the_keys_package() -> None:
    assert _keys_spelt_outside_the_keys_package() == set()


def test_a_key_spelt_by_hand_is_seen() -> None:
    spelt = [ast.parse(source).body[0].value for source in ('"truc:{m:1}:views"', 'f"truc:{x}"', 'f"{PREFIX}:a"',
                                                           'f"{keys.PREFIX}:a"', '"truce"', 'f"{x}:truc:"')]
    assert [_spells_a_key(node) for node in spelt] == [True, True, True, True, False, False]
