"""Building memory: stream a conversation's build, export it, graphs."""

from __future__ import annotations

from memory_core.services.base import ServicesBase


class BuildService(ServicesBase):
    pass
