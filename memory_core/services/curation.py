"""Curation: versioned record edits, entity merges, reverts, impact of corrections."""

from __future__ import annotations

from memory_core.services.base import ServicesBase


class CurationService(ServicesBase):
    pass
