"""Finding: free-text search over what records say (never ids), the entity filter kept in step
with ``?entity=``, and names/ids linking to their objects."""

from __future__ import annotations

from memory_core.record_filter import RecordFilter
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors, record_rows, shown, widget

as_filter = RecordFilter.of  # loose test input -> the typed filter


def _speakers(app_services) -> list[str]:
    return list(app_services.raw_store().load_conversation(SAMPLE_ID).speakers)


def test_searching_a_speakers_name_no_longer_matches_every_record(open_app, app_services) -> None:
    total = app_services.curation.search_records(SAMPLE_ID, page_size=1).total
    name = _speakers(app_services)[0]  # also part of the conversation id "demo-maya-jonas"
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.text_input, "Search records").input(name).run()
    no_errors(at)
    found = app_services.curation.search_records(SAMPLE_ID, query=name, page_size=200)
    assert 0 < found.total < total
    assert f"{found.total} matching records" in all_text(at)
    # every hit says the name in a field a reader sees, or in its evidence turns
    turns = {t.id: t.text for t in app_services.raw_store().turns(SAMPLE_ID, None)}
    for r in found.rows:
        seen = " ".join([r.entity, r.entity_type, r.property, r.value, r.condition or "",
                         r.valid_time or "", r.valid_time_text or "",
                         *(turns.get(t, "") for t in r.evidence_turn_ids)]).lower()
        assert name.lower() in seen, r.id
    assert app_services.curation.search_records(SAMPLE_ID, query=SAMPLE_ID).total == 0  # ids are not text


def test_entity_link_opens_the_records_about_that_entity(open_app, app_services) -> None:
    name = _speakers(app_services)[0]
    at = open_app("pages/records.py", conv=SAMPLE_ID, entity=name.lower())  # case does not matter
    no_errors(at)
    picker = widget(at.multiselect, "Entity")
    assert [v.lower() for v in picker.value] == [name.lower()]
    expected = app_services.curation.search_records(SAMPLE_ID, filters=as_filter({"entity": name}),
                                                    page_size=1).total
    assert expected > 0 and f"{expected} matching records" in all_text(at)
    assert {e.lower() for e in record_rows(at)["entity"]} == {name.lower()}
    # the user's own choice goes back to the URL (shareable)
    other = _speakers(app_services)[1]
    picker = widget(at.multiselect, "Entity")
    picker.set_value([other]).run()
    no_errors(at)
    assert at.query_params["entity"] in ([other], other)
    assert {e.lower() for e in record_rows(at)["entity"]} == {other.lower()}


def test_entity_filter_suggests_entities_and_accepts_a_typed_name(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    picker = widget(at.multiselect, "Entity")
    facets = dict(app_services.curation.record_facets(SAMPLE_ID)["entity"])
    assert set(picker.options) >= {f"{n} ({c})" for n, c in list(facets.items())[:5]}
    picker.set_value(["nobody-by-this-name"]).run()
    no_errors(at)
    assert "No record matches." in all_text(at)


def test_names_and_record_chips_link_to_their_objects(open_app, app_services) -> None:
    record = app_services.curation.search_records(SAMPLE_ID, page_size=1).rows[0]
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=record.id)
    no_errors(at)
    body = html_bodies(at)
    from urllib.parse import quote

    speaker = _speakers(app_services)[0]
    assert f'href="records?conv={SAMPLE_ID}&amp;entity={quote(speaker)}"' in body
    assert f'href="records?conv={SAMPLE_ID}&amp;record={quote(record.id, safe="")}"' in body
    assert f'href="episodes?conv={SAMPLE_ID}&amp;episode={quote(record.episode_id, safe="")}"' in body
    links = [p for p in at.get("page_link")]
    assert any(p.proto.label.startswith("All records about") for p in links)


def test_memory_as_of_a_date_hides_later_records(open_app, app_services) -> None:
    convo = app_services.imports.conversation(SAMPLE_ID)
    day = convo.sessions[1].time.date()  # after the second session
    total = app_services.curation.search_records(SAMPLE_ID, page_size=1).total
    search = app_services.curation.search_records
    then = search(SAMPLE_ID, filters=as_filter({"as_of": day.isoformat()}), page_size=1).total
    assert 0 < then < total
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.text_input, "Memory as of").input(day.isoformat()).run()
    no_errors(at)
    assert f"{then} matching records" in all_text(at)
    assert at.query_params["as_of"] in ([day.isoformat()], day.isoformat())  # shareable, like Graphs
    # the entity chips count the records of that day too
    speaker = _speakers(app_services)[0]
    counts = dict(app_services.curation.record_facets(SAMPLE_ID, as_of=day.isoformat())["entity"])
    now = dict(app_services.curation.record_facets(SAMPLE_ID)["entity"])
    assert counts[speaker] < now[speaker]
    assert f"{speaker} ({counts[speaker]})" in widget(at.multiselect, "Entity").options
    # a link with the day opens the page as of that day; a wrong day says so in one line
    at = open_app("pages/records.py", conv=SAMPLE_ID, as_of=day.isoformat())
    no_errors(at)
    assert widget(at.text_input, "Memory as of").value == day.isoformat()
    assert f"{then} matching records" in all_text(at)
    widget(at.text_input, "Memory as of").input("2023-13-40").run()
    assert [shown(w.value) for w in at.warning] == ["Memory as of: '2023-13-40' is not a date (YYYY-MM-DD); "
                                             "showing the memory as it is now."]
    assert "as_of" not in at.query_params and f"{total} matching records" in all_text(at)
