"""One "memory as of a day" rule (``memory_core.as_of``): the records filter's SQL and the
Python rule the graphs are cut by agree, record by record, on every day around the dates the
memory holds (both engines); the GraphML export as of a day keeps only what the filter lists."""

from __future__ import annotations

import json
from datetime import date, timedelta

import networkx as nx
import pytest

from memory_core.as_of import parse_day, said_by
from memory_core.errors import StoreError
from memory_core.record_filter import RecordFilter
from tests.curation.handmade import CONV, S1, S2, load

# valid times of every granularity, set on the hand-made records (in record order)
VALID_TIMES = ("2023", "2023-05-08", "2023-05-20", None, "2023-07", "", "2023-06-01", "2024-01")


@pytest.fixture
def varied(store):
    load(store)
    rows, _ = store.search_records(CONV, page_size=100)
    for record, valid in zip(rows, VALID_TIMES, strict=True):
        store.update_record(record.model_copy(update={"valid_time": valid}), expected_version=record.version)
    return store


def _days() -> list[date]:
    """Every day from a week before the first session to past the latest valid time's month."""
    first = S1.date() - timedelta(days=7)
    return [first + timedelta(days=n) for n in range((date(2024, 2, 3) - first).days)]


def test_the_records_filter_and_the_graph_rule_agree_on_every_day(varied) -> None:
    every, total = varied.search_records(CONV, page_size=100)
    assert total == len(VALID_TIMES)
    start = {e.id: e.start_time for e in varied.episodes(CONV)}
    counted = set()
    for day in _days():
        rows, n = varied.search_records(CONV, filters=RecordFilter.of({"as_of": day}), page_size=100)
        by_rule = [r.id for r in every if said_by(day, start[r.episode_id], r.valid_time)]
        assert [r.id for r in rows] == by_rule and n == len(by_rule), day
        counted.add(n)
    assert len(counted) >= 6  # the sweep sees the memory grow, not one answer
    assert said_by(S2.date(), S2, "2023-06") and not said_by(S2.date() - timedelta(days=1), S2, None)


def test_a_day_is_a_date_or_iso_text_and_nothing_else() -> None:
    assert parse_day("2023-06-01") == parse_day(S2) == parse_day(S2.date()) == date(2023, 6, 1)
    for bad in ("last spring", "2023-02-30", "2023-6-1", ""):
        with pytest.raises(StoreError, match="as_of: expected a date"):
            parse_day(bad, what="as_of")


def test_graphml_as_of_a_day_keeps_only_what_the_filter_lists_then(built, tmp_path) -> None:
    day = date(2023, 5, 20)  # after session 1, before session 2
    now = [nx.read_graphml(p) for p in built.builds.export_graphml(CONV, tmp_path / "now.graphml")]
    then = [nx.read_graphml(p)
            for p in built.builds.export_graphml(CONV, tmp_path / "then.graphml", as_of=day)]
    listed = {r.id for r in built.curation.search_records(CONV, filters=RecordFilter(
        as_of=day, status="all")).rows}
    cited = {i for _, _, a in then[0].edges(data=True) for i in json.loads(a.get("record_ids") or "[]")}
    assert cited and cited <= listed
    assert then[0].number_of_edges() < now[0].number_of_edges()
    before = built.builds.export_graphml(CONV, tmp_path / "before.graphml", as_of="2023-05-01")
    assert nx.read_graphml(before[0]).number_of_edges() == 0
    with pytest.raises(StoreError, match="as_of"):
        built.builds.export_graphml(CONV, tmp_path / "bad.graphml", as_of="yesterday")
