"""Annotating fast on Records and History: the review queue (correct / wrong / edit / next and
their keys), correct / wrong on the open record keeping the tab and the selection, evidence
picked from the episode's turns, a record's own history with a confirmed revert, supersession
marks with links, readable History and "what changed" against the state before an edit.

The home is shared with the other page tests: each test restores what it changed."""

from __future__ import annotations

import re

from components import links
from components.review import KEYS, MODE_KEY, TAB_KEY, record_name
from components.text import esc
from memory_core.impact_report import ImpactReport
from memory_core.record_filter import RecordFilter
from tests.app.conftest import SAMPLE_ID, all_text, button, html_bodies, no_errors, record_rows, shown, widget

as_filter = RecordFilter.of  # loose test input -> the typed filter

TURN_LABEL = re.compile(r"^\S+ · [^:]+: .+")


def _tab(at, name: str) -> None:
    """Open a tab of the record (only the open tab is drawn)."""
    at.session_state[TAB_KEY] = name
    at.run()


def _queue_head(at) -> str:
    return shown(at.subheader[0].value)


def test_review_queue_correct_wrong_next_and_edit(open_app, app_services) -> None:
    svc = app_services
    queue = svc.curation.review_queue(SAMPLE_ID)
    first, second, third, fourth = queue[:4]
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    at.button_group[0].set_value("Review queue").run()
    no_errors(at)
    assert _queue_head(at).startswith(f"{first.entity} · {first.property} = ")
    assert "records to review" in all_text(at)
    # the shortcut component is mounted, listening to exactly the four action keys
    assert KEYS == "cwen" and [e.key for e in at.get("bidi_component")] == ["review_keys"]

    # every action button names the record it acts on
    assert {f"✓ Correct {first.id} (c)", f"✗ Wrong {first.id} (w)", f"✎ Edit {first.id} (e)",
            f"→ Next {first.id} (n)"} <= {b.label for b in at.button}
    button(at, f"✓ Correct {first.id} (c)").click().run()
    no_errors(at)
    assert svc.raw_store().record(first.id).confidence == 1.0
    confirm = svc.curation.record_history(first.id)[-1]
    assert (confirm.why, confirm.via) == ("confirmed correct in review queue", "review queue")
    assert _queue_head(at).startswith(f"{second.entity} · {second.property} = ")

    button(at, f"✗ Wrong {second.id} (w)").click().run()
    no_errors(at)
    assert str(svc.raw_store().record(second.id).status.value) == "wrong"
    assert _queue_head(at).startswith(f"{third.entity} · {third.property} = ")

    edits_before = len(svc.curation.record_history(third.id))
    button(at, f"→ Next {third.id} (n)").click().run()
    no_errors(at)
    assert len(svc.curation.record_history(third.id)) == edits_before  # skipping changes nothing
    assert "1 correct, 1 wrong, 1 skipped" in all_text(at)
    assert _queue_head(at).startswith(f"{fourth.entity} · {fourth.property} = ")

    button(at, f"✎ Edit {fourth.id} (e)").click().run()
    no_errors(at)
    assert at.session_state[MODE_KEY] == "Browse" and at.session_state[TAB_KEY] == "Edit"
    assert widget(at.selectbox, "Open record").value == fourth.id
    assert widget(at.multiselect, "Evidence").value == list(fourth.evidence_turn_ids)

    svc.curation.revert_edit(confirm.id, who="tester")
    svc.curation.restore_record(second.id, who="tester")


def test_quick_wrong_keeps_the_tab_and_the_record(open_app, app_services) -> None:
    record = app_services.curation.search_records(SAMPLE_ID, page_size=14).rows[13]
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.selectbox, "Open record").set_value(record.id).run()
    at.session_state[TAB_KEY] = "History"
    at.run()
    button(at, f"✗ Wrong {record.id}").click().run()
    no_errors(at)
    assert str(app_services.raw_store().record(record.id).status.value) == "wrong"
    assert app_services.curation.record_history(record.id)[-1].via == "browse: open record"
    assert at.session_state[TAB_KEY] == "History"  # the tab stays
    assert widget(at.selectbox, "Open record").value == record.id  # so does the record
    assert "Marked" in all_text(at) and "as wrong" in all_text(at)
    assert "marked wrong in browse: open record" in all_text(at)  # its own history shows the new edit
    assert "in review" not in all_text(at)  # made in Browse: never logged as made in the review queue
    _tab(at, "Mark wrong / delete")
    button(at, f"Restore {record.id}").click().run()
    no_errors(at)
    assert str(app_services.raw_store().record(record.id).status.value) == "active"


def test_after_a_quick_action_or_a_revert_the_editor_saves_without_a_conflict(open_app,
                                                                             app_services) -> None:
    svc = app_services
    record = svc.curation.search_records(SAMPLE_ID, filters=as_filter({"min_confidence": 0.0}),
                                         sort="confidence", page_size=19).rows[18]
    assert record.confidence < 1.0
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=record.id)
    button(at, f"✓ Correct {record.id}").click().run()
    no_errors(at)
    assert svc.raw_store().record(record.id).confidence == 1.0
    widget(at.text_area, "Value").input("saved after confirming")
    button(at, f"Save changes to {record.id}").click().run()
    no_errors(at)  # no conflict: the form follows the version the quick action saved
    assert svc.raw_store().record(record.id).value == "saved after confirming"
    _tab(at, "History")
    button(at, f"Revert this edit of {record.id}").click().run()  # the newest edit: the value
    button(at, f"Yes, revert {record.id}").click().run()
    no_errors(at)
    assert svc.curation.record_history(record.id)[-1].via == "record history"
    _tab(at, "Edit")
    widget(at.number_input, "Confidence").set_value(0.5)
    button(at, f"Save changes to {record.id}").click().run()
    no_errors(at)  # nor after a revert made on the page
    assert svc.raw_store().record(record.id).value == record.value
    assert svc.raw_store().record(record.id).confidence == 0.5


def test_evidence_from_the_turn_picker_and_the_records_own_history_with_revert(open_app,
                                                                                app_services) -> None:
    svc = app_services
    record = svc.curation.search_records(SAMPLE_ID, page_size=15).rows[14]
    episode = next(e for e in svc.builds.episodes(SAMPLE_ID) if e.id == record.episode_id)
    other = next(t for t in episode.turn_ids if t not in record.evidence_turn_ids)
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.selectbox, "Open record").set_value(record.id).run()
    picker = widget(at.multiselect, "Evidence")
    assert picker.value == list(record.evidence_turn_ids)
    assert all(TURN_LABEL.match(o) for o in picker.options), picker.options[:3]
    assert any(o.startswith(f"{other} · ") for o in picker.options)
    picker.set_value([other])
    widget(at.text_input, "Why", form="edit:").input("evidence from the picker")
    button(at, f"Save changes to {record.id}").click().run()
    no_errors(at)
    assert svc.raw_store().record(record.id).evidence_turn_ids == (other,)
    assert svc.curation.record_history(record.id)[-1].via == "edit form"

    # its own history: who, what, before → after; revert asks first
    _tab(at, "History")
    text = all_text(at)
    assert "edited in edit form" in text
    assert f"evidence_turn_ids: {', '.join(record.evidence_turn_ids)} → {other}" in text
    button(at, f"Revert this edit of {record.id}").click().run()
    no_errors(at)
    assert svc.raw_store().record(record.id).evidence_turn_ids == (other,)
    button(at, f"Yes, revert {record.id}").click().run()
    no_errors(at)
    assert svc.raw_store().record(record.id).evidence_turn_ids == record.evidence_turn_ids
    assert widget(at.selectbox, "Open record").value == record.id


def test_a_revert_can_be_cancelled(open_app, app_services) -> None:
    record = app_services.curation.search_records(SAMPLE_ID, page_size=16).rows[15]
    app_services.curation.edit_record(record.id, {"value": "to be kept"}, who="tester",
                                      expected_version=record.version)
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=record.id)
    _tab(at, "History")
    button(at, f"Revert this edit of {record.id}").click().run()
    button(at, "Cancel").click().run()
    no_errors(at)
    assert app_services.raw_store().record(record.id).value == "to be kept"
    assert not [b for b in at.button if b.label.startswith("Yes, revert")]
    app_services.curation.revert_edit(app_services.curation.record_history(record.id)[-1].id, who="tester")


def test_superseded_records_link_to_the_record_superseding_them(open_app, app_services) -> None:
    svc = app_services
    job = next(r for r in svc.raw_store().records(SAMPLE_ID) if r.property == "occupation")
    episodes = svc.raw_store().episodes(SAMPLE_ID)
    later_episode = episodes[-1]  # an annotator notes a later job change
    update = svc.curation.create_record(
        SAMPLE_ID, later_episode.id,
        {"entity": job.entity, "entity_type": "person", "property": "occupation", "value": "studio owner"},
        [later_episode.turn_ids[0]], who="tester")
    superseded = svc.curation.supersession(SAMPLE_ID)
    assert superseded.get(job.id) == update.id
    old, new = job.id, update.id
    later = app_services.raw_store().record(new)
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=old)
    no_errors(at)
    body = html_bodies(at)
    assert "superseded by" in body and esc(record_name(later)) in body
    assert f'href="{links.href_record(SAMPLE_ID, new).replace("&", "&amp;")}"' in body
    table = record_rows(at)
    for rid, mark in zip(table["id"], table["superseded by"], strict=True):
        assert bool(mark) == (rid in superseded), rid
        if mark:
            assert mark.endswith(f"({superseded[rid]})")
    at = open_app("pages/records.py", conv=SAMPLE_ID, record=new)
    body = html_bodies(at)
    old_href = links.href_record(SAMPLE_ID, old).replace("&", "&amp;")
    assert "supersedes" in body and f'href="{old_href}"' in body
    svc.curation.delete_record(update.id, who="tester", why="test done")
    assert job.id not in svc.curation.supersession(SAMPLE_ID)


def test_history_names_records_and_compares_with_the_answers_before_an_edit(open_app,
                                                                             app_services) -> None:
    svc = app_services
    question = "What does Jonas do on weekends?"
    before = svc.queries.ask(SAMPLE_ID, question)
    record = svc.curation.search_records(SAMPLE_ID, page_size=17).rows[16]
    svc.curation.edit_record(record.id, {"value": "a <b>bold</b> change"}, who="tester", why="impact test",
                             expected_version=record.version)
    edit = svc.curation.record_history(record.id)[-1]
    after_edit = svc.queries.ask(SAMPLE_ID, question)  # asked again after the edit
    at = open_app("pages/history.py", conv=SAMPLE_ID, timeout=600)
    no_errors(at)
    log = at.dataframe[0].value
    assert (log["what"] == f"tester edited {record.entity} · {record.property} = a <b>bold</b> change").any()
    widget(at.selectbox, "Edit").set_value(0).run()
    assert "&lt;b&gt;bold&lt;/b&gt;" in html_bodies(at) and "<b>bold</b>" not in html_bodies(at)
    baseline = widget(at.selectbox, "Compare with the answers given")
    baseline.set_value(edit.id).run()
    button(at, "Re-run saved questions").click().run()
    no_errors(at)
    report = at.session_state["impact_report"]
    assert isinstance(report, ImpactReport)  # the service's typed report, kept as it is
    row = next(r for r in report.rows if r.question == question)
    assert row.before_trace_id == before.id != after_edit.id  # the answer before the edit
    svc.curation.revert_edit(edit.id, who="tester")


def test_edit_names_for_merges_reverts_and_records() -> None:
    from datetime import datetime

    from components.history_view import diff_html, edit_summary, target_name
    from memory_core.models import Edit

    at = datetime(2026, 1, 2, 3, 4)
    merge = Edit(id="m1", conv_id="c", target_kind="entity", target_id="Jo", action="merge", who="ana",
                 at=at, before={"name": "Jo", "merged_into": None},
                 after={"name": "Jo", "merged_into": "Jonas"})
    undo = Edit(id="m2", conv_id="c", target_kind="entity", target_id="Jo", action="revert", who="bo", at=at,
                before=merge.after, after=merge.before, reverts="m1")
    update = Edit(id="u1", conv_id="c", target_kind="record", target_id="c:S1:E1:R1", action="update",
                  who="ana", at=at, before={"entity": "Maya", "property": "lives_in", "value": "Lisbon"},
                  after={"entity": "Maya", "property": "lives_in", "value": "Berlin"})
    assert target_name(merge) == "Jo → Jonas" and target_name(update) == "Maya · lives_in = Berlin"
    assert edit_summary(undo, {"m1": merge}) == (
        "bo reverted entity Jo (undoing: ana merged on 2026-01-02 03:04)")
    table = diff_html([("value", "Lisbon <i>old</i> town", "Berlin <i>old</i> town")])
    assert '<del class="mn-del">Lisbon</del>' in table and '<ins class="mn-ins">Berlin</ins>' in table
    assert "&lt;i&gt;old&lt;/i&gt; town" in table and "<i>" not in table
