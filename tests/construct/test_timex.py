"""Relative time expressions normalised against the session date (a Monday, 8 May 2023)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memory_core.timeexpr import normalise

BASE = datetime(2023, 5, 8, 13, 0)


@pytest.mark.parametrize(("text", "iso", "granularity"), [
    ("yesterday", "2023-05-07", "date"),
    ("last Saturday", "2023-05-06", "date"),
    ("two weeks ago", "2023-04-24", "date"),
    ("last weekend", "2023-05-06", "date"),
    ("this weekend", "2023-05-13", "date"),
    ("last month", "2023-04", "month"),
    ("next month", "2023-06", "month"),
    ("May 2023", "2023-05", "month"),
    ("last year", "2022", "year"),
    ("4 years ago", "2019", "year"),
    ("since 2016", "2016", "year"),
    ("last summer", "2022", "year"),
])
def test_relative_expressions(text: str, iso: str, granularity: str) -> None:
    value = normalise(text, BASE)
    assert value is not None
    assert (value.iso, value.granularity, value.text) == (iso, granularity, text)


@pytest.mark.parametrize("text", ["three years", "28 years old", "a while", "recently", "every week"])
def test_durations_and_vague_words_are_not_points(text: str) -> None:
    assert normalise(text, BASE) is None


def _iso(text: str, base: datetime | None, **kw: Any) -> str | None:
    value = normalise(text, base, **kw)
    return value.iso if value is not None else None


def test_future_preference_and_in_durations() -> None:
    assert _iso("June", BASE) == "2022-06"
    assert _iso("June", BASE, prefer="future") == "2023-06"
    assert _iso("two weeks", BASE, preceded_by="in") == "2023-05-22"


def test_without_a_session_date_only_explicit_dates() -> None:
    assert normalise("last year", None) is None
    assert _iso("May 2023", None) == "2023-05"
