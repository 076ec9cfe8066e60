"""The Records page's table with correct / wrong on every row (the ``mnemoscope.record_rows``
component; the clicks themselves are driven in tests/browser/test_record_rows.py), the review
queue honouring the Browse filters, and only the open tab being drawn.

The home is shared with the other page tests: each test restores what it changed."""

from __future__ import annotations

import json

from components.review import MODE_KEY, TAB_KEY
from memory_core.record_filter import RecordFilter
from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, all_text, button, no_errors, record_rows, shown, widget

as_filter = RecordFilter.of  # loose test input -> the typed filter


def _table(at):
    found = [c for c in at.get("bidi_component") if c.proto.component_name == "mnemoscope.record_rows"]
    assert len(found) == 1
    return found[0].proto


def test_every_row_carries_its_status_and_version_and_shows_a_saved_verdict(open_app, app_services) -> None:
    svc = app_services
    page = svc.curation.search_records(SAMPLE_ID, page_size=50).rows
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    no_errors(at)
    rows = record_rows(at)
    assert list(rows["id"]) == [r.id for r in page]
    assert list(rows["status"]) == [r.status.value for r in page]
    assert list(rows["version"]) == [r.version for r in page]
    # the open record is the highlighted row, from the first draw on
    assert json.loads(_table(at).json)["selected"] == widget(at.selectbox, "Open record").value == page[0].id
    widget(at.selectbox, "Open record").set_value(page[3].id).run()
    assert json.loads(_table(at).json)["selected"] == page[3].id
    # a verdict saved elsewhere (the same call the row button makes) shows on the next draw
    target = page[5]
    svc.curation.mark_wrong(target.id, who="tester", why="row test", expected_version=target.version)
    try:
        at.run()
        no_errors(at)
        row = record_rows(at).set_index("id").loc[target.id]
        assert row["status"] == "wrong" and row["version"] == target.version + 1
    finally:
        svc.curation.restore_record(target.id, who="tester")


def test_hostile_record_text_reaches_the_table_only_as_data(open_app) -> None:
    at = open_app("pages/records.py", conv=HOSTILE_ID)
    no_errors(at)
    proto = _table(at)
    data = json.loads(proto.json)
    texts = [v for r in data["rows"] for v in r["cells"].values()]
    assert any("<" in t for t in texts), texts  # the hostile strings are in the rows, as data
    for bit in ("<img", "<script", "onerror", "javascript:", "Mallory"):
        assert bit not in proto.html_content and bit not in proto.js_content
    # the browser side writes data with textContent / title only: no HTML sink in the component
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in proto.js_content, sink


def test_review_queue_honours_the_browse_filters(open_app, app_services) -> None:
    svc = app_services
    name = svc.curation.record_facets(SAMPLE_ID)["entity"][0][0]
    everyone = svc.curation.review_queue(SAMPLE_ID)
    theirs = svc.curation.review_queue(SAMPLE_ID, filters=as_filter({"entity": [name]}))
    assert theirs and len(theirs) < len(everyone)
    assert {r.entity.lower() for r in theirs} == {name.lower()}
    assert [r.id for r in theirs] == [r.id for r in everyone if r.entity.lower() == name.lower()]

    at = open_app("pages/records.py", conv=SAMPLE_ID)
    at.button_group[0].set_value("Review queue").run()
    no_errors(at)
    assert f"{len(everyone)} records to review: every active record" in all_text(at)
    widget(at.multiselect, "Entity").set_value([name]).run()
    no_errors(at)
    assert at.session_state[MODE_KEY] == "Review queue"
    text = all_text(at)
    assert f"{len(theirs)} records to review: the active records the search and filters above select" in text
    assert shown(at.subheader[0].value).startswith(f"{theirs[0].entity} · {theirs[0].property} = ")
    # a text search narrows it too
    word = theirs[0].value.split()[0]
    widget(at.text_input, "Search records").input(word).run()
    found = svc.curation.review_queue(SAMPLE_ID, query=word, filters=as_filter({"entity": [name]}))
    assert f"{len(found)} records to review" in all_text(at)


def test_only_the_open_tab_is_drawn(open_app) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    no_errors(at)
    opened = widget(at.selectbox, "Open record").value
    labels = {b.label for b in [*at.button, *at.form_submit_button]}
    assert f"Save changes to {opened}" in labels and f"Mark {opened} as wrong" not in labels
    assert "Merge entities" not in labels
    at.session_state[TAB_KEY] = "Merge entities"
    at.run()
    labels = {b.label for b in [*at.button, *at.form_submit_button]}
    assert "Merge entities" in labels and f"Save changes to {opened}" not in labels
    assert button(at, "Merge entities")


def _more(at, is_open: bool = True) -> None:
    """Open (or close) the "More filters" expander for the next run (AppTest keeps no expander
    state of its own between runs, a browser does)."""
    at.session_state["records_more_open"] = is_open


def test_secondary_filters_are_drawn_only_when_open_and_always_applied(open_app, app_services) -> None:
    svc = app_services
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    no_errors(at)
    labels = {w.label for w in [*at.multiselect, *at.selectbox]}
    assert "Property" not in labels and "Rows per page" not in labels  # eight widgets fewer
    _more(at)
    at.run()
    props = [name for name, _n in svc.curation.record_facets(SAMPLE_ID)["property"][:2]]  # more than a page
    _more(at)
    widget(at.multiselect, "Property").set_value(props).run()
    _more(at)
    widget(at.selectbox, "Rows per page").set_value(25).run()
    expected = svc.curation.search_records(SAMPLE_ID, filters=as_filter({"property": props}), page_size=25)
    assert expected.total > 25
    assert list(record_rows(at)["id"]) == [r.id for r in expected.rows]
    _more(at, False)  # closed: still applied, and the label says so
    at.run()
    no_errors(at)
    assert "Property" not in {w.label for w in at.multiselect}
    assert list(record_rows(at)["id"]) == [r.id for r in expected.rows]
    assert "More filters set: property, page size" in all_text(at)
    # the review queue covers them too
    at.button_group[0].set_value("Review queue").run()
    queue = svc.curation.review_queue(SAMPLE_ID, filters=as_filter({"property": props}))
    assert f"{len(queue)} records to review: the active records the search and filters above select" in \
        all_text(at)
    at.button_group[0].set_value("Browse").run()
    _more(at)
    at.run()
    assert widget(at.multiselect, "Property").value == props  # reopened: the kept values
    _more(at)
    button(at, "Reset these").click().run()
    no_errors(at)
    assert len(record_rows(at)) == min(50, svc.curation.search_records(SAMPLE_ID, page_size=1).total)


def test_header_sort_toggles_and_the_payload_says_which_column() -> None:
    from components import record_filters as rt
    from components.record_table import row_payload

    assert rt.next_sort("episode", "entity") == "entity"  # another column: its first order
    assert rt.next_sort("entity", "entity") == "-entity"  # the same column: the other order
    assert rt.next_sort("-entity", "entity") == "entity"
    assert rt.next_sort("episode", "confidence") == "-confidence"  # highest first on a first click
    assert rt.next_sort("episode", "evidence") is None  # not a sortable column
    assert all(rt.SORTS[rt.SORT_LABELS[key]] == key for key in rt.SORTS.values())
    data = row_payload([], {}, {}, {}, None, "-valid_time")
    assert data["sort"] == {"column": "valid time", "descending": True}
    assert "entity" in data["sortable"] and "evidence" not in data["sortable"]


def test_the_table_is_drawn_in_the_chosen_order(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    conv_more = at.session_state["records_more_filters"][SAMPLE_ID]
    conv_more["sort"] = "value Z–A"  # what a second click on the value header stores
    at.run()
    no_errors(at)
    expected = app_services.curation.search_records(SAMPLE_ID, sort="-value", page_size=50).rows
    assert list(record_rows(at)["id"]) == [r.id for r in expected]
    assert json.loads(_table(at).json)["sort"] == {"column": "value", "descending": True}
    conv_more["sort"] = "dialogue order"
    at.run()


def test_the_open_record_is_always_one_the_table_lists_or_says_it_is_pinned(open_app, app_services) -> None:
    svc = app_services
    page = svc.curation.search_records(SAMPLE_ID, page_size=50).rows
    opened = page[2]
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.selectbox, "Open record").set_value(opened.id).run()
    # a search that no longer lists the open record: the pane moves to a listed one
    word = next(w for r in page for w in r.value.split() if len(w) > 3 and w.lower() not in
                f"{opened.entity} {opened.property} {opened.value}".lower())
    widget(at.text_input, "Search records").input(word).run()
    no_errors(at)
    listed = list(record_rows(at)["id"])
    assert opened.id not in listed
    shown_id = widget(at.selectbox, "Open record").value
    assert shown_id in listed and at.query_params["record"] in ([shown_id], shown_id)
    assert widget(at.selectbox, "Open record").options == [
        o for o in widget(at.selectbox, "Open record").options if o.split(" — ")[0] in listed]
    labels = {b.label for b in at.button}
    assert f"✗ Wrong {shown_id}" in labels and f"✗ Wrong {opened.id}" not in labels
    assert not [i for i in at.info if "Pinned" in i.value]

    # a link to a record the results do not list opens it pinned, said so, until unpinned
    elsewhere = svc.curation.search_records(SAMPLE_ID, page=2, page_size=50).rows[0]
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=elsewhere.id)
    no_errors(at)
    assert elsewhere.id not in list(record_rows(at)["id"])
    assert widget(at.selectbox, "Open record").value == elsewhere.id
    note = f"Pinned: {elsewhere.id} is not among the records listed above"
    assert any(note in shown(i.value) for i in at.info)
    assert f"✗ Wrong {elsewhere.id}" in {b.label for b in at.button}
    at.run()  # stays pinned on later runs
    assert widget(at.selectbox, "Open record").value == elsewhere.id
    button(at, f"Unpin {elsewhere.id}").click().run()
    no_errors(at)
    assert widget(at.selectbox, "Open record").value in list(record_rows(at)["id"])
    assert not [i for i in at.info if "Pinned" in i.value]
