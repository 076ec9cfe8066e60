"""Time spans normalised against the session date-time: see ``memory_core.timeexpr.normalise``."""

from memory_core.timeexpr import Granularity, TimeValue, normalise

__all__ = ["Granularity", "TimeValue", "normalise"]
