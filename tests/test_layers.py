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
