"""Episodes, Records and Graphs pages on the built sample."""

from __future__ import annotations

import json

from components import graph, links
from components.text import shorten
from memory_core.record_filter import RecordFilter
from tests.app.conftest import SAMPLE_ID, all_text, button, html_bodies, no_errors, record_rows, widget

as_filter = RecordFilter.of  # loose test input -> the typed filter


def test_episodes_timeline_bands_and_selection(open_app, app_services) -> None:
    at = open_app("pages/episodes.py", conv=SAMPLE_ID)
    no_errors(at)
    episodes = app_services.builds.episodes(SAMPLE_ID)
    assert any(m.label == "Episodes" and m.value == str(len(episodes)) for m in at.metric)
    assert at.get("bidi_component"), "the timeline is drawn"
    first_session = [e for e in episodes if e.session == episodes[0].session]
    # the chosen episode, then the rest of its session (the chosen one is not drawn twice)
    assert html_bodies(at).count('class="mn-episode"') == len(first_session)
    widget(at.selectbox, "Session").set_value(0).run()  # all sessions
    body = html_bodies(at)
    assert body.count('class="mn-episode"') == len(episodes)  # every episode is a band, once
    picker = widget(at.selectbox, "Episode")
    second = episodes[1]
    picker.set_value(second.id).run()
    no_errors(at)
    assert at.subheader[0].value.startswith("S")
    records = app_services.curation.search_records(SAMPLE_ID, filters=as_filter({"episode_id": second.id}),
            page_size=200)
    (table,) = [json.loads(c.proto.json) for c in at.get("bidi_component")
                if "mnemoscope.sort_table" in c.proto.component_name]
    assert len(table["rows"]) == records.total  # a light sortable table (no data grid), a row per record
    hrefs = {row["href"] for row in table["rows"]}
    assert hrefs == {links.href_record(SAMPLE_ID, r.id) for r in records.rows}  # rows open records
    assert f"{len(second.turn_ids)} turns" in all_text(at)


def test_records_search_filters_and_pages_in_the_service(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    no_errors(at)
    total = app_services.curation.search_records(SAMPLE_ID, page_size=1).total
    assert f"{total} matching records" in all_text(at)
    assert len(record_rows(at)) == min(50, total)
    at.session_state["records_more_open"] = True  # the secondary filters are drawn when open
    at.run()
    at.session_state["records_more_open"] = True
    widget(at.selectbox, "Rows per page").set_value(25).run()
    assert len(record_rows(at)) == min(25, total)
    button(at, "Next ▶").click().run()
    assert "Page 2 of" in all_text(at)
    widget(at.text_input, "Search records").input("lisbon").run()
    found = app_services.curation.search_records(SAMPLE_ID, query="lisbon", page_size=1).total
    assert "Page 1 of" in all_text(at) and f"{found} matching records" in all_text(at)
    assert 0 < found < total


def test_open_a_record_shows_its_episode_with_evidence_highlighted(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    record = app_services.curation.search_records(SAMPLE_ID, page_size=3).rows[2]
    widget(at.selectbox, "Open record").set_value(record.id).run()
    no_errors(at)
    assert at.query_params["record"] in ([record.id], record.id)  # the open record is in the URL
    body = html_bodies(at)
    for tid in record.evidence_turn_ids:
        anchor = "turn-" + "".join(c if c.isalnum() else "-" for c in tid)
        assert f'class="mn-turn mn-evidence" id="{anchor}"' in body


def test_edit_a_record_then_a_stale_form_conflicts(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    record = app_services.curation.search_records(SAMPLE_ID, page_size=5).rows[4]
    widget(at.selectbox, "Open record").set_value(record.id).run()
    widget(at.text_area, "Value").input("edited in the app test")
    widget(at.text_input, "Why", form="edit:").input("test edit")
    button(at, f"Save changes to {record.id}").click().run()
    no_errors(at)
    saved = app_services.raw_store().record(record.id)
    assert saved.value == "edited in the app test" and saved.version == record.version + 1
    assert any(e.target_id == record.id and e.why == "test edit"
               for e in app_services.curation.edit_log(SAMPLE_ID))
    # someone else saves the same record while this form is open: saving now is a conflict
    at.run()
    app_services.curation.edit_record(record.id, {"value": "changed elsewhere"}, who="other", why="race",
                             expected_version=saved.version)
    widget(at.text_area, "Value").input("my late change")
    button(at, f"Save changes to {record.id}").click().run()
    assert any(e.value.startswith("Conflict:") for e in at.error)
    assert app_services.raw_store().record(record.id).value == "changed elsewhere"


def test_mark_wrong_and_add_a_record_from_turns(open_app, app_services) -> None:
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    record = app_services.curation.search_records(SAMPLE_ID, page_size=8).rows[7]
    widget(at.selectbox, "Open record").set_value(record.id).run()
    at.session_state["records_tab"] = "Mark wrong / delete"  # only the open tab is drawn
    at.run()
    widget(at.text_input, "Reason").input("not said")
    button(at, f"Mark {record.id} as wrong").click().run()
    no_errors(at)
    assert app_services.raw_store().record(record.id).status.value == "wrong"
    # add a record citing turns of that record's episode
    at.run()
    widget(at.selectbox, "Open record").set_value(record.id).run()
    at.session_state["records_tab"] = "Add a record"
    at.run()
    episode = next(e for e in app_services.builds.episodes(SAMPLE_ID) if e.id == record.episode_id)
    widget(at.multiselect, "Evidence turns").set_value([episode.turn_ids[0]])
    widget(at.text_input, "Entity", form="create:").set_value("Test entity")
    widget(at.text_input, "Property", form="create:").set_value("likes")
    widget(at.text_input, "Value", form="create:").set_value("unit tests")
    button(at, "Add record").click().run()
    no_errors(at)
    made = app_services.curation.search_records(SAMPLE_ID, filters=as_filter({"entity": "Test entity"})).rows
    assert len(made) == 1 and made[0].evidence_turn_ids == (episode.turn_ids[0],)
    assert made[0].origin == "annotator"


def test_graphs_draw_both_graphs_and_show_node_records(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    no_errors(at)
    assert not at.get("iframe")  # drawn by the canvas component, not an iframe
    canvas = at.get("bidi_component")
    assert len(canvas) == 1
    first = canvas[0].proto.json
    assert "Click a node or an edge" in all_text(at)
    at.segmented_control[0].set_value("event").run()
    no_errors(at)
    assert len(at.get("bidi_component")) == 1
    assert at.get("bidi_component")[0].proto.json != first


def test_graph_filters_cut_the_graph(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    at.toggle(key="g:all:entity").set_value(True).run()
    widget(at.number_input, "Show at most (nodes)").set_value(10).run()
    no_errors(at)
    assert "the 10 most important of" in all_text(at)
    node = widget(at.selectbox, "Find a node")
    assert len(node.options) == 10 + 1  # the nodes shown, and "none"
    ego = widget(at.selectbox, "Ego network of")
    ego.set_value(ego.options[1]).run()
    no_errors(at)
    # the drawn graph is now the chosen node's neighbourhood (depth 1, at most 10 nodes)
    center = widget(at.selectbox, "Ego network of").value
    g = app_services.builds.entity_graph(SAMPLE_ID)
    assert center in g
    expected = graph.filter_graph(g, ego=center, depth=1, limit=10).graph
    neighbourhood = {x for e in g.edges if center in (e.source, e.target) for x in (e.source, e.target)}
    assert set(expected.ids()) <= neighbourhood | {center} and center in expected
    drawn = {n["id"] for n in json.loads(at.get("bidi_component")[0].proto.json)["nodes"]}
    assert drawn == set(expected.ids())
    name = {n.id: n.label for n in expected.nodes}
    labels = [shorten(name[n], 60) for n in graph.node_choices(expected)]
    assert widget(at.selectbox, "Find a node").options[1:] == labels
