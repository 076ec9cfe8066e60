"""Record search: filters, free text, sort and pagination run in SQL."""

from __future__ import annotations

import pytest

from memory_core.errors import StoreError
from memory_core.models import RecordStatus
from memory_core.record_filter import RecordFilter
from tests.curation.handmade import CONV, load

as_filter = RecordFilter.of  # loose test input -> the typed filter


@pytest.fixture
def loaded(store):
    load(store)
    return store


def ids(rows) -> list[str]:
    return [r.id for r in rows]


def test_default_order_is_dialogue_order_and_total_counts_all(loaded) -> None:
    rows, total = loaded.search_records(CONV)
    assert total == 8
    assert ids(rows)[:2] == ["c1:S1:E1:R1", "c1:S1:E1:R2"]
    assert ids(rows)[-2:] == ["c1:S2:E1:R1", "c1:S2:E1:R2"]


def test_pagination_splits_without_overlap(loaded) -> None:
    pages = [loaded.search_records(CONV, page=p, page_size=3) for p in (1, 2, 3, 4)]
    assert [len(rows) for rows, _ in pages] == [3, 3, 2, 0]
    assert all(total == 8 for _, total in pages)
    seen = [i for rows, _ in pages for i in ids(rows)]
    assert len(seen) == len(set(seen)) == 8


def test_filters_combine(loaded) -> None:
    rows, total = loaded.search_records(CONV, filters=as_filter({"entity": "ben", "session": 1}))
    assert ids(rows) == ["c1:S1:E2:R1"] and total == 1
    rows, _ = loaded.search_records(CONV, filters=as_filter({"modality": "planned"}))
    assert ids(rows) == ["c1:S1:E2:R1"]
    typed = RecordFilter(property=("paints", "taught"), min_confidence=0.6)
    rows, _ = loaded.search_records(CONV, filters=typed)
    assert ids(rows) == ["c1:S1:E1:R1", "c1:S2:E1:R2"]
    loose = {"entity_type": "place", "property": None, "session": ""}  # empty values filter nothing
    rows, _ = loaded.search_records(CONV, filters=as_filter(loose))
    assert ids(rows) == ["c1:S1:E2:R2"]
    rows, _ = loaded.search_records(CONV, filters=as_filter({"episode_id": "c1:S2:E1"}))
    assert ids(rows) == ["c1:S2:E1:R1", "c1:S2:E1:R2"]


def test_free_text_matches_every_word_anywhere(loaded) -> None:
    rows, _ = loaded.search_records(CONV, query="  LISBON  ben ")
    assert ids(rows) == ["c1:S1:E2:R1", "c1:S2:E1:R1"]
    rows, _ = loaded.search_records(CONV, query="mostly")  # the evidence turns' words are searched
    assert ids(rows) == ["c1:S1:E1:R2", "c1:S1:E1:R3", "c1:S1:E1:R4"]
    rows, total = loaded.search_records(CONV, query="'; DROP TABLE records; --")
    assert rows == [] and total == 0
    assert loaded.search_records(CONV)[1] == 8  # the table is still there


def test_free_text_never_matches_ids_or_the_speaker(loaded) -> None:
    # record ids contain the conversation id and episode ids; turn ids are ids too
    for id_part in ("c1", "S1:E1", "D1:3", "R2"):
        assert loaded.search_records(CONV, query=id_part) == ([], 0), id_part
    # every record's source speaker is Ana: only records about Ana, or naming her, match
    rows, _ = loaded.search_records(CONV, query="ana")
    assert ids(rows) == ["c1:S1:E1:R1", "c1:S1:E1:R2", "c1:S1:E1:R3", "c1:S1:E1:R4", "c1:S2:E1:R2"]
    rows, total = loaded.search_records(CONV, query="trams lovely", filters=as_filter({"entity": "lisbon"}))
    assert ids(rows) == ["c1:S1:E2:R2"] and total == 1  # value + evidence words, with a filter


def test_as_of_shows_the_memory_as_it_stood_that_day(loaded) -> None:
    from datetime import date

    # session 1 is 2023-05-08, session 2 2023-06-01; one record is about July 2023 (a plan)
    rows, _ = loaded.search_records(CONV, filters=as_filter({"as_of": date(2023, 5, 20)}))
    assert ids(rows) == ["c1:S1:E1:R1", "c1:S1:E1:R2", "c1:S1:E1:R3", "c1:S1:E1:R4", "c1:S1:E2:R2"]
    assert loaded.search_records(CONV, filters=as_filter({"as_of": "2023-06-01"}))[1] == 7  # session 2 counts
    assert loaded.search_records(CONV, filters=as_filter({"as_of": "2023-07-31"}))[1] == 8  # the plan's month
    assert loaded.search_records(CONV, filters=as_filter({"as_of": "2023-05-01"}))[1] == 0  # before anything
    with pytest.raises(StoreError, match="as_of"):
        loaded.search_records(CONV, filters=as_filter({"as_of": "last spring"}))


def test_sort_ascending_descending_with_stable_ties(loaded) -> None:
    rows, _ = loaded.search_records(CONV, sort="-confidence")
    confidences = [r.confidence for r in rows]
    assert confidences == sorted(confidences, reverse=True)
    assert ids(rows)[:2] == ["c1:S1:E1:R1", "c1:S2:E1:R1"]  # 0.9 ties broken by dialogue order
    rows, _ = loaded.search_records(CONV, sort="entity")
    assert [r.entity for r in rows] == sorted((r.entity for r in rows), key=str.lower)
    rows, _ = loaded.search_records(CONV, sort="-valid_time")
    assert [r.valid_time for r in rows][:2] == ["2023-07", "2023-05"]  # NULLs last either way
    assert rows[-1].valid_time is None


def test_status_filter_hides_deleted_by_default(loaded) -> None:
    rec = loaded.record("c1:S1:E1:R2")
    loaded.update_record(rec.model_copy(update={"status": RecordStatus.DELETED}), expected_version=1)
    rec = loaded.record("c1:S1:E1:R3")
    loaded.update_record(rec.model_copy(update={"status": RecordStatus.WRONG}), expected_version=1)
    assert loaded.search_records(CONV)[1] == 7
    assert ids(loaded.search_records(CONV, filters=as_filter({"status": "deleted"}))[0]) == ["c1:S1:E1:R2"]
    assert loaded.search_records(CONV, filters=as_filter({"status": "all"}))[1] == 8
    assert ids(loaded.search_records(CONV, filters=as_filter({"status": ["wrong"]}))[0]) == ["c1:S1:E1:R3"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sort": "value; DROP TABLE records"}, "records sort: unknown field"),
        ({"filters": {"colour": "red"}}, "records filter: unknown key 'colour'"),
        ({"filters": {"modality": "maybe"}}, "records filter 'modality': unknown value 'maybe'"),
        ({"filters": {"status": "gone"}}, "records filter 'status': unknown value 'gone'"),
        ({"filters": {"min_confidence": "high"}}, "records filter 'min_confidence': expected a number"),
        ({"filters": {"session": "two"}}, "records filter 'session': expected session numbers"),
        ({"page": 0}, "page must be 1 or more"),
        ({"page_size": 5000}, "page_size must be 1..1000"),
    ],
)
def test_bad_arguments_get_one_line_errors(loaded, kwargs, message) -> None:
    with pytest.raises(StoreError, match=message) as caught:
        if "filters" in kwargs:  # loose input is checked where it becomes a RecordFilter
            kwargs = {**kwargs, "filters": RecordFilter.of(kwargs["filters"])}
        loaded.search_records(CONV, **kwargs)
    assert "\n" not in str(caught.value)


def test_facets_count_values(loaded) -> None:
    facets = loaded.record_facets(CONV)
    assert dict(facets["entity_type"]) == {"person": 7, "place": 1}
    assert dict(facets["session"]) == {1: 6, 2: 2}
    assert facets["entity"][0] == ("Ana", 3)


def test_facets_as_of_a_day_count_the_memory_then(loaded) -> None:
    then = loaded.record_facets(CONV, as_of="2023-05-31")  # after session 1, before session 2
    listed, total = loaded.search_records(CONV, filters=as_filter({"as_of": "2023-05-31"}), page_size=100)
    assert dict(then["session"]) == {1: 5}  # Ben's July trip (valid 2023-07) is not yet memory
    assert dict(then["entity"]) == {"Ana": 3, "Mel": 1, "Lisbon": 1} and total == 5
    assert sum(n for _, n in then["entity"]) == len(listed)
    assert dict(loaded.record_facets(CONV)["entity"])["Ben"] == 2


def test_service_wraps_a_page(built) -> None:
    page = built.curation.search_records(CONV, page=2, page_size=5)
    assert (page.total, page.pages, len(page.rows)) == (8, 2, 3)
    with pytest.raises(StoreError, match="unknown conversation 'nope'"):
        built.curation.search_records("nope")
