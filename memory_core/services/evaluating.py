"""Evaluation: LoCoMo-format runs, recall curves, triage."""

from __future__ import annotations

from memory_core.services.base import ServicesBase


class EvalService(ServicesBase):
    pass
