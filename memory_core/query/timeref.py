"""Relative time in a turn resolved for the offline answer: see ``memory_core.timeexpr``."""

from memory_core.timeexpr import TIME_RE, find_and_resolve, fmt_day, format_iso, resolve

__all__ = ["TIME_RE", "find_and_resolve", "fmt_day", "format_iso", "resolve"]
