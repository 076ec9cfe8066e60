"""The one time-expression module: each reader on small hand-made inputs, exact outputs."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from memory_core import timeexpr as t

MONDAY = datetime(2023, 5, 8, 13, 56)  # 8 May 2023 was a Monday


def test_one_month_table_with_abbreviations() -> None:
    assert len(t.MONTHS) == 24 and t.MONTHS["sept"] == t.MONTHS["sep"] == t.MONTHS["september"] == 9
    assert t.MONTH_NAMES[0] == "january" and t.MONTH_NAMES[11] == "december"
    assert t.MONTH_ALT.split("|")[0] == "september"  # longest first for regex alternation


@pytest.mark.parametrize(("text", "expected"), [
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
    ("2023/05/20 (Sat) 02:21", datetime(2023, 5, 20, 2, 21)),
    ("2023-05-14T10:00:00+02:00", datetime(2023, 5, 14, 8, 0)),
    ("14th Sept 2023 9am", datetime(2023, 9, 14, 9, 0)),
    ("May 14, 2023 10:30 pm", datetime(2023, 5, 14, 22, 30)),
    ("14.05.2023", datetime(2023, 5, 14)),
    ("05/06/2023", None),  # ambiguous day/month order: not read
    ("on 8 May, 2023 or so", None),  # words left over: not a whole date-time
    ("31 February 2023", None),
])
def test_parse_datetime(text: str, expected: datetime | None) -> None:
    assert t.parse_datetime(text) == expected


def test_search_datetime_finds_a_date_inside_a_line() -> None:
    assert t.search_datetime("=== Session 2 — 20 June 2023, 10:00 am ===") == datetime(2023, 6, 20, 10, 0)
    assert t.search_datetime("no date here") is None


def test_question_dates_and_session_nearness() -> None:
    question = "What did she do on 1 February, 2023 and in Sept 2022, and in 2021, during March?"
    found = t.question_dates(question, datetime(2023, 2, 10))
    assert found == [
        (date(2023, 2, 1), date(2023, 2, 1), "1 February, 2023"),
        (date(2022, 9, 1), date(2022, 9, 30), "Sept 2022"),
        (date(2021, 1, 1), date(2021, 12, 31), "in 2021"),
        (date(2022, 3, 1), date(2022, 3, 31), "during March"),  # after the last session: a year back
    ]
    assert t.question_dates("What happened during March?") == []  # no reference: no bare month
    assert t.session_near(date(2023, 5, 5), date(2023, 5, 1), date(2023, 5, 1)) == 1.0
    assert t.session_near(date(2023, 5, 20), date(2023, 5, 1), date(2023, 5, 1)) == 1 - 9 / 21
    assert t.session_near(date(2023, 4, 20), date(2023, 5, 1), date(2023, 5, 1)) == 1 - 8 / 21
    assert t.session_near(date(2022, 1, 1), date(2023, 5, 1), date(2023, 5, 1)) == 0.0


@pytest.mark.parametrize(("phrase", "first", "last"), [
    ("yesterday", date(2023, 5, 29), date(2023, 5, 29)),
    ("last week", date(2023, 5, 22), date(2023, 5, 28)),  # the Monday-Sunday week before
    ("this week", date(2023, 5, 29), date(2023, 5, 30)),
    ("last Saturday", date(2023, 5, 27), date(2023, 5, 27)),
    ("last Tuesday", date(2023, 5, 23), date(2023, 5, 23)),  # asked on a Tuesday: a week back
    ("last weekend", date(2023, 5, 27), date(2023, 5, 28)),
    ("three weeks ago", date(2023, 5, 6), date(2023, 5, 12)),
    ("a couple of days ago", date(2023, 5, 27), date(2023, 5, 29)),
    ("last month", date(2023, 4, 1), date(2023, 4, 30)),
    ("2 months ago", date(2023, 3, 1), date(2023, 3, 31)),
    ("last year", date(2022, 1, 1), date(2022, 12, 31)),
])
def test_relative_question_dates_count_back_from_the_asking_day(phrase: str, first: date, last: date) -> None:
    asked = datetime(2023, 5, 30, 14, 0)  # a Tuesday
    assert t.question_dates(f"Where did I go {phrase}?", asked, now=asked) == [(first, last, phrase)]
    # without the day the question was asked, "last week" is not anchored to anything
    assert t.question_dates(f"Where did I go {phrase}?", asked) == []


@pytest.mark.parametrize(("text", "iso", "granularity"), [
    ("yesterday", "2023-05-07", "date"),
    ("last Saturday", "2023-05-06", "date"),
    ("next Friday", "2023-05-12", "date"),
    ("last weekend", "2023-05-06", "date"),
    ("last month", "2023-04", "month"),
    ("May 2023", "2023-05", "month"),
    ("a few days ago", "2023-05", "month"),
    ("last year", "2022", "year"),
])
def test_normalise_spans_against_the_session(text: str, iso: str, granularity: t.Granularity) -> None:
    assert t.normalise(text, MONDAY) == t.TimeValue(iso, text, granularity)


def test_normalise_refuses_durations_and_needs_a_year_without_a_session() -> None:
    assert t.normalise("for three years", MONDAY) is None
    assert t.normalise("28 years old", MONDAY) is None
    assert t.normalise("May 2023", None) == t.TimeValue("2023-05", "May 2023", "month")
    assert t.normalise("last year", None) is None


@pytest.mark.parametrize(("expression", "resolved"), [
    ("yesterday", "7 May 2023"),
    ("last Saturday", "6 May 2023"),
    ("Friday", "5 May 2023"),
    ("two weeks ago", "the week of 24 April 2023"),
    ("next week", "the week after 8 May 2023"),
    ("a few years ago", "few years before 2023"),
    ("last month", "April 2023"),
    ("in March", "March 2023"),
    ("since 2019", "2019"),
    ("someday", "someday"),
])
def test_resolve_phrases_for_the_offline_answer(expression: str, resolved: str) -> None:
    assert t.resolve(expression, MONDAY) == resolved


def test_find_and_resolve_and_format_iso() -> None:
    assert t.find_and_resolve("I went there yesterday and again last Saturday.", MONDAY) == [
        ("yesterday", "7 May 2023"), ("last Saturday", "6 May 2023")]
    assert t.find_and_resolve("yesterday", None) == [("yesterday", "yesterday")]
    assert [t.format_iso(v) for v in ("2023-05-07", "2023-04", "2022", "x-y")] == [
        "7 May 2023", "April 2023", "2022", "x-y"]


@pytest.mark.parametrize(("expression", "said_on", "resolved"), [
    ("in April next year", date(2023, 9, 14), "April 2024"),
    ("October last year", date(2023, 9, 14), "October 2022"),
    ("next April", date(2023, 9, 14), "April 2024"),
    ("next November", date(2023, 9, 14), "November 2023"),
    ("last May", date(2023, 6, 12), "May 2023"),
    ("last October", date(2023, 6, 12), "October 2022"),
    # a day of a month without its year: the nearest one, coming or gone
    ("on the 15th of April", date(2023, 3, 19), "15 April 2023"),
    ("the 10th of September", date(2023, 5, 21), "10 September 2023"),
    ("June 5th", date(2023, 6, 12), "5 June 2023"),
    ("the 2nd of January", date(2023, 12, 20), "2 January 2024"),
    ("the 30th of February", date(2023, 12, 20), None),
    # a season keeps its name
    ("last summer", date(2023, 6, 12), "summer 2022"),
    ("last summer", date(2023, 9, 14), "summer 2023"),
    ("next spring", date(2023, 9, 14), "spring 2024"),
    ("yesterday", date(2023, 9, 14), None),
])
def test_named_time_gives_a_month_day_or_season_its_year(expression: str, said_on: date,
                                                         resolved: str | None) -> None:
    assert t.named_time(expression, said_on) == resolved


def test_time_re_finds_days_named_by_their_ordinal_and_months_with_their_year() -> None:
    found = [m.group(0) for m in t.TIME_RE.finditer(
        "The recital is on the 3rd of March, rehearsals start February 20th, and the tour is in May next "
        "year. Next April we rest. The score was 3 to 1 in 20 minutes.")]
    assert found == ["the 3rd of March", "February 20th", "in May next year", "Next April"]
