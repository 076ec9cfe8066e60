"""Helpers for the import tests: write hand-made files, load them with small limits."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_core.config import ImportLimits


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write(name, content) -> path; content is bytes, str, or a JSON value (dumped)."""

    def _write(name: str, content: Any) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def limits() -> ImportLimits:
    return ImportLimits()
