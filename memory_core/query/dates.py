"""Dates named in a question as date ranges: see ``memory_core.timeexpr.question_dates``."""

from memory_core.timeexpr import question_dates, session_near

__all__ = ["question_dates", "session_near"]
