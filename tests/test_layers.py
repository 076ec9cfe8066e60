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


def test_pages_and_components_hold_no_storage_or_pipeline_clients() -> None:
    """Nor do the components: the graphs reach them as typed views (memory_core.graph_view)."""
    forbidden = {"duckdb", "chromadb", "networkx", "openai", "spacy", "sentence_transformers", "sqlite3"}
    pages = [*(ROOT / "pages").glob("*.py"), *(ROOT / "components").glob("*.py")]
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
    ("progress", "record_filter"),  # value types built on the models: build progress, record filters
    # value types and small utilities
    ("__init__", "models", "config", "tokens", "timeexpr", "ids", "eval_rows", "eval_summary", "as_of",
     "summaries", "impact_report"),
    ("errors", "heap", "graph_view", "json_value"),
)
BOTTOM = {"progress", "record_filter", "eval_rows", "eval_summary", "models", "errors", "config", "tokens",
          "timeexpr", "ids", "as_of", "graph_view", "heap", "json_value", "summaries", "impact_report"}

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
    "progress": {"models", "errors"},
    "record_filter": {"models", "errors", "as_of"},
    "__init__": {"config", "errors"},  # re-exports Settings and the error types
    "models": {"errors"},
    "config": {"errors"},
    "tokens": {"errors"},
    "timeexpr": {"errors"},
    "ids": {"errors"},
    "as_of": {"errors", "graph_view"},  # the "memory as of a day" rule: the records filter and the graphs
    "eval_rows": set(),
    "eval_summary": set(),  # the figures of an evaluation run, per group of rows
    "impact_report": set(),  # what re-asking the saved questions after corrections changed
    "graph_view": set(),  # typed nodes and edges of a graph, read by the front ends
    "errors": set(),
    "summaries": {"json_value"},  # conversations, a file's preview, builds: what Home and Load show
    "json_value": set(),  # the typed plain JSON values a component is sent, a to_json() returns
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


# Rooms inside the backends floor: each backend is a package of its own (backends/offline: the
# segmenter, rule extractor, planner and answerer; backends/openai: the backend and its
# prompts). Neither imports the other; only the factory and the per-stage mix see both.
BACKEND_ROOMS = ("offline", "openai")


def room_offenders(rel: str, text: str) -> list[str]:
    """Imports in backend room ``rel`` (``memory_core/backends/<room>/...``) of another room."""
    room = rel.split("/")[2]
    others = [f"memory_core.backends.{r}" for r in BACKEND_ROOMS if r != room]
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                   else [node.module] if node.module else [])
        if isinstance(node, ast.ImportFrom) and node.module == "memory_core.backends":
            modules += [f"memory_core.backends.{a.name}" for a in node.names]
        found += [f"{rel}:{node.lineno}: backends/{room} imports {m}" for m in modules
                  if any(m == o or m.startswith(o + ".") for o in others)]
    return found


def test_each_backend_is_a_room_of_its_own() -> None:
    base = ROOT / "memory_core" / "backends"
    assert all((base / room / "__init__.py").exists() for room in BACKEND_ROOMS)
    offenders = [o for room in BACKEND_ROOMS for p in (base / room).rglob("*.py")
                 for o in room_offenders(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert offenders == []
    crossing = ("from memory_core.backends.openai.prompts import plan\n"
                "from memory_core.backends import offline\n")
    assert room_offenders("memory_core/backends/offline/x.py", crossing) == [
        "memory_core/backends/offline/x.py:1: backends/offline imports memory_core.backends.openai.prompts"]
    assert room_offenders("memory_core/backends/openai/x.py", crossing) == [
        "memory_core/backends/openai/x.py:2: backends/openai imports memory_core.backends.offline"]


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


# ------------------------------------------------------------------ one front door
# ``Services`` keeps the store and the vector index private: outside memory_core/services/ and
# memory_core/store/ no code reads ``.store`` / ``.index`` of another object (a part holding the
# store it was given reads its own: ``self.store``), nor the tests' accessors ``raw_store()`` /
# ``raw_index()``, nor the private ``_store`` / ``_index``. ``Session.index`` (a session's
# number) is the one model field of that name; a method call ``x.index(...)`` is a list's.
DOOR_ATTRIBUTES = {"store", "index", "_store", "_index", "raw_store", "raw_index"}
DOOR_INSIDE = ("memory_core/services/", "memory_core/store/")


def door_offenders(rel: str, text: str) -> list[str]:
    """Attribute reads in file ``rel`` that reach around the services to the store or the index."""
    if rel.startswith(DOOR_INSIDE):
        return []
    tree = ast.parse(text)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in DOOR_ATTRIBUTES:
            continue
        owner = ast.unparse(node.value)
        if owner == "self" and node.attr in ("store", "index"):
            continue
        if node.attr == "index" and (id(node) in called or owner == "s" or owner.endswith("session")):
            continue
        found.append((node.lineno, f"{rel}:{node.lineno}: {ast.unparse(node)}"))
    return [text for _, text in sorted(found)]


def test_front_ends_go_through_the_services() -> None:
    files = [*(ROOT / "memory_core").rglob("*.py"), *(ROOT / "components").glob("*.py"),
             *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    offenders = [o for p in files
                 for o in door_offenders(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_door_scan_catches_a_way_around() -> None:
    around = ("rows = svc.store.records(conv)\nvectors = services.index\nraw = svc.raw_store()\n"
              "hidden = svc._store\ngraph = svc.curation.store\n")
    assert door_offenders("components/x.py", around) == [
        "components/x.py:1: svc.store", "components/x.py:2: services.index",
        "components/x.py:3: svc.raw_store", "components/x.py:4: svc._store",
        "components/x.py:5: svc.curation.store"]
    fine = ("self.store.records(conv)\nn = session.index\nk = s.index\ni = names.index('a')\n"
            "rows = svc.curation.records(conv)\n")
    assert door_offenders("memory_core/cli/x.py", fine) == []
    assert door_offenders("memory_core/services/x.py", around) == []


# ------------------------------------------------------------------ typed seams in the front end
# No parameter of a component or a page is ``Any`` (issue 22): graphs arrive as a GraphView,
# table cells as a Cell, evaluation reports and rows as their types; a value that really can be
# anything (a widget's return value being checked) is an ``object`` the code narrows.
def _names_any(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Any") or (
        isinstance(node, ast.Attribute) and node.attr == "Any")


def any_parameters(rel: str, text: str) -> list[str]:
    """Parameters in file ``rel`` whose annotation mentions ``Any``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        a = node.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p)]
        for p in params:
            if p.annotation is not None and any(_names_any(n) for n in ast.walk(p.annotation)):
                found.append(f"{rel}:{p.lineno}: {p.arg}: {ast.unparse(p.annotation)}")
    return found


def test_no_any_parameter_in_the_front_end() -> None:
    files = [*(ROOT / "components").glob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    offenders = [o for p in files
                 for o in any_parameters(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_any_scan_catches_an_untyped_seam() -> None:
    code = ("def f(g: Any, n: int, *rest: Any, rows: dict[str, typing.Any], **kw: Any) -> Any:\n"
            "    return g\n"
            "def fine(value: object, cells: list[Cell]) -> Any:\n    return value\n")
    assert any_parameters("components/x.py", code) == [
        "components/x.py:1: g: Any", "components/x.py:1: rows: dict[str, typing.Any]",
        "components/x.py:1: rest: Any", "components/x.py:1: kw: Any"]
