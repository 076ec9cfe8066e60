"""Session date-times as written in sources: the readers live in ``memory_core.timeexpr``."""

from memory_core.timeexpr import parse_datetime, search_datetime

__all__ = ["parse_datetime", "search_datetime"]
