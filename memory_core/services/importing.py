"""Import, list, stats, export of conversations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.services.base import ServicesBase


class ImportService(ServicesBase):
    def list_conversations(self) -> list[dict[str, Any]]:
        return self.store.conversation_summaries()

    def stats(self, conv_id: str | None = None) -> dict[str, int]:
        return self.store.stats(conv_id)

    def import_file(self, path: str | Path, *, fmt: str | None = None, replace: bool = False) -> list[str]:
        """Import every conversation in ``path`` in one transaction; returns their ids."""
        raise NotImplementedError  # filled by the ingest work
