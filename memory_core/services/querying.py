"""Asking questions: plan, retrieve, answer, traces."""

from __future__ import annotations

from memory_core.services.base import ServicesBase


class QueryService(ServicesBase):
    pass
