"""Architecture rules that must not erode: import direction and thin pages."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_library_never_imports_streamlit() -> None:
    offenders = [p for p in (ROOT / "memory_core").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_library_never_imports_front_end() -> None:
    offenders = [
        p for p in (ROOT / "memory_core").rglob("*.py") if _imports(p) & {"pages", "components", "app"}
    ]
    assert offenders == []


def test_pages_hold_no_storage_or_pipeline_clients() -> None:
    forbidden = {"duckdb", "chromadb", "networkx", "openai", "spacy", "sentence_transformers", "sqlite3"}
    pages = list((ROOT / "pages").glob("*.py"))
    offenders = {p.name: sorted(_imports(p) & forbidden) for p in pages if _imports(p) & forbidden}
    assert offenders == {}


def test_no_unpickling_anywhere() -> None:
    risky = {"pickle", "marshal", "shelve", "dill", "joblib", "cloudpickle"}
    files = [*(ROOT / "memory_core").rglob("*.py"), *(ROOT / "pages").glob("*.py"),
             *(ROOT / "components").glob("*.py"), ROOT / "app.py"]
    offenders = [p for p in files if p.exists() and _imports(p) & risky]
    assert offenders == []


# ------------------------------------------------------------------ import directions
# The floors of memory_core, top to bottom (docs/architecture.md draws them). A unit is a
# top-level module or package of memory_core.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("mcp_server",),  # a front end over the services, like the app
    ("services",),
    ("eval", "curation"),
    ("backends",),
    ("construct", "query"),
    ("store", "llm", "ingest", "embeddings"),
    ("contracts",),
    ("__init__", "models", "config", "tokens", "timeexpr", "ids"),  # value types and small utilities
    ("errors", "heap"),
)
BOTTOM = {"models", "errors", "config", "tokens", "timeexpr", "ids", "heap"}

# What each unit may import: only units on lower floors. Units on one floor do not import each
# other, except where noted.
ALLOWED: dict[str, set[str]] = {
    "__main__": {"cli"},
    "cli": {"mcp_server", "services", "eval", "curation", "backends", "construct", "query", "store", "llm",
            "ingest", "embeddings", "contracts", *BOTTOM},
    "mcp_server": {"services", *BOTTOM},
    "services": {"eval", "curation", "backends", "construct", "query", "store", "llm", "ingest",
                 "embeddings", "contracts", *BOTTOM},
    "eval": {"backends", "construct", "query", "store", "llm", "ingest", "embeddings", "contracts", *BOTTOM},
    "curation": {"backends", "construct", "query", "store", "llm", "ingest", "embeddings", "contracts",
                 *BOTTOM},
    "backends": {"construct", "query", "store", "llm", "ingest", "embeddings", "contracts", *BOTTOM},
    # construction and questions reach storage through the contracts' protocols only
    "construct": {"llm", "ingest", "embeddings", "contracts", *BOTTOM},
    "query": {"llm", "ingest", "embeddings", "contracts", *BOTTOM},
    "store": {"contracts", *BOTTOM},
    "llm": {"contracts", *BOTTOM},  # calls are cached and accounted through RelationalStore
    "ingest": {"contracts", *BOTTOM},
    "embeddings": {"contracts", *BOTTOM},
    "contracts": set(BOTTOM),
    "__init__": {"config", "errors"},  # re-exports Settings and the error types
    "models": {"errors"},
    "config": {"errors"},
    "tokens": {"errors"},
    "timeexpr": {"errors"},
    "ids": {"errors"},
    "errors": set(),
    "heap": set(),  # gc housekeeping after long-lived loads (models, the app's services)
}
# The front end (app.py, pages/, components/) reaches the library through the services and
# the plain value types only.
FRONT_END_ALLOWED = {"services", *BOTTOM}
LATERAL = {("__init__", "config")}


def _unit(rel: str) -> str:
    parts = rel.split("/")
    return parts[1].removesuffix(".py")


def _memory_core_imports(text: str) -> list[tuple[int, str]]:
    """(line, unit) of every memory_core import, at any depth (function-level ones included)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = ([f"memory_core.{alias.name}" for alias in node.names] if node.module == "memory_core"
                       else [node.module])
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append((node.lineno, "<relative import>"))
        found += [(node.lineno, m.split(".")[1]) for m in modules
                  if m.startswith("memory_core.") and len(m.split(".")) > 1]
    return found


def import_offenders(rel: str, text: str) -> list[str]:
    """Imports in file ``rel`` (a path like ``memory_core/query/x.py``) that run up or across a floor."""
    if rel.startswith("memory_core/"):
        unit = _unit(rel)
        allowed = ALLOWED[unit] | {unit}
    else:
        unit, allowed = rel, FRONT_END_ALLOWED
    return [f"{rel}:{line}: {unit} imports {target}" for line, target in _memory_core_imports(text)
            if target not in allowed]


def test_the_allowed_table_follows_the_floors() -> None:
    floor = {unit: i for i, units in enumerate(FLOORS) for unit in units}
    assert set(floor) == set(ALLOWED)
    upward = [(u, t) for u, targets in ALLOWED.items() for t in targets
              if floor[t] <= floor[u] and (u, t) not in LATERAL]  # FLOORS runs top to bottom
    assert upward == []
    on_disk = {p.name.removesuffix(".py") for p in (ROOT / "memory_core").iterdir()
               if p.suffix == ".py" or (p.is_dir() and any(p.glob("*.py")))}
    assert on_disk == set(ALLOWED), "a new memory_core unit needs its row in ALLOWED"


def test_imports_only_run_down_a_floor() -> None:
    files = [*(ROOT / "memory_core").rglob("*.py"), *(ROOT / "components").glob("*.py"),
             *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    offenders = [o for p in files
                 for o in import_offenders(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_import_scan_catches_an_upward_import() -> None:
    upward = ("from memory_core.models import Plan\n\n"
              "def embedder():\n    from memory_core.services.base import shared\n    return shared()\n")
    assert import_offenders("memory_core/backends/x.py", upward) == [
        "memory_core/backends/x.py:4: backends imports services"]
    sideways = "import memory_core.backends.base\nfrom memory_core import eval\n"
    assert import_offenders("memory_core/query/x.py", sideways) == [
        "memory_core/query/x.py:1: query imports backends", "memory_core/query/x.py:2: query imports eval"]
    assert import_offenders("memory_core/query/x.py", "from . import planner\n") == [
        "memory_core/query/x.py:1: query imports <relative import>"]
    page = "from memory_core.services import Services\nfrom memory_core.store import Store\n"
    assert import_offenders("pages/x.py", page) == ["pages/x.py:2: pages/x.py imports store"]
