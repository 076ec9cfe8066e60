"""Load-page pieces: choose a source (a shipped sample or an upload), preview it, import it."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

import streamlit as st

from memory_core.errors import MnemoscopeError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "sample_data"
FORMATS = ("detect", "locomo", "longmemeval", "json", "jsonl", "csv", "text")
UPLOAD_TYPES = ["json", "jsonl", "csv", "txt", "md"]
_UPLOAD_DIR = Path(tempfile.gettempdir()) / "mnemoscope-uploads"


def sample_files() -> list[Path]:
    if not SAMPLE_DIR.is_dir():
        return []
    return sorted(p for p in SAMPLE_DIR.iterdir() if p.is_file() and not p.name.startswith("."))


def _safe_name(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(name).name)
    return keep.lstrip(".") or "upload"


def store_upload(upload: Any) -> Path:
    """Write an uploaded file to a private temp path that keeps its (sanitised) name.

    Keeping the name lets importer messages name the file the user chose. The content is
    never unpickled or executed: the importers read JSON/CSV/text only.
    """
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    folder = _UPLOAD_DIR / digest
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / _safe_name(upload.name)
    if not path.exists():
        path.write_bytes(data)
    return path


@st.cache_data(show_spinner=False, max_entries=32)
def _preview(_svc: Any, path: str, mtime: float, fmt: str | None) -> dict[str, Any]:
    """Detected format and preview of a file (cached per file version); errors as one line."""
    try:
        detected = _svc.detect_format(path) if fmt is None else fmt
        info = _svc.preview(path) if callable(getattr(_svc, "preview", None)) else {}
        return {"format": detected, "preview": info, "error": None}
    except MnemoscopeError as exc:
        return {"format": None, "preview": None, "error": str(exc)}


def preview(svc: Any, path: Path, fmt: str | None) -> dict[str, Any]:
    if not callable(getattr(svc, "detect_format", None)):
        return {"format": fmt, "preview": None, "error": None}
    return dict(_preview(svc, str(path), path.stat().st_mtime, fmt))


def import_path(svc: Any, path: Path, fmt: str | None, replace: bool) -> tuple[list[str], list[str]]:
    """Import ``path``; returns (conversation ids, warnings). Project errors propagate."""
    result = svc.import_file(path, fmt=fmt, replace=replace)
    ids = list(getattr(result, "ids", result) or [])
    warnings = [str(w) for w in getattr(result, "warnings", []) or []]
    return [str(i) for i in ids], warnings
