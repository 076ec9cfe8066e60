"""History's "Impact of corrections" view: *changed* means the answer text or the cited turns
differ (an identical answer over a new buffer is not a change), the changed questions show a
word diff and the cited turns gained or lost, *Changed only* hides the rest, and the before /
after comparison opens on the first changed question.

The traces are real (asked through the services); the "after" of the changed question is a
saved copy of a real trace with another answer, as a correction would give."""

from __future__ import annotations

import uuid

from components.impact_view import IMPACT_KEY, ONLY_KEY
from memory_core.curation.impact import compare
from memory_core.impact_report import ImpactReport
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors, widget


def _copy(svc, trace, **answer):
    """A saved copy of ``trace`` (a new id), its answer changed by ``answer``."""
    copy = trace.model_copy(update={"id": f"t-{uuid.uuid4().hex[:12]}",
                                    "answer": trace.answer.model_copy(update=answer)})
    svc.raw_store().save_trace(copy)
    return copy


def test_changed_means_a_new_answer_or_citation_and_the_view_opens_on_it(open_app, app_services) -> None:
    svc = app_services
    same_before = svc.queries.ask(SAMPLE_ID, "Which city did Maya move to?")
    # the same answer and citations over another buffer: listed, not changed
    same_after = same_before.model_copy(update={"id": f"t-{uuid.uuid4().hex[:12]}",
                                                "buffer": same_before.buffer[1:]})
    svc.raw_store().save_trace(same_after)
    moved_before = svc.queries.ask(SAMPLE_ID, "What does Jonas do for work?")
    cited = moved_before.answer.cited_turn_ids
    gained = next(b.turn_id for b in moved_before.buffer if b.turn_id not in cited)
    moved_after = _copy(svc, moved_before, text="<b>Zeppelin</b> navigator",
                        cited_turn_ids=(gained,))
    rows = [compare(same_before, same_after), compare(moved_before, moved_after)]
    assert rows[0].buffer_removed and not rows[0].changed and rows[1].changed
    report = ImpactReport(conv_id=SAMPLE_ID, strategy=None, rows=rows, edits_considered=1)

    at = open_app("pages/history.py", conv=SAMPLE_ID)
    at.session_state[IMPACT_KEY] = report
    at.run()
    no_errors(at)
    assert "1 of 2 questions changed (answer text or cited turns differ)" in all_text(at)
    table = at.dataframe[-1].value
    assert list(table["question"]) == ["What does Jonas do for work?"]  # changed only, by default
    # the word diff (escaped) and the cited turn gained, with its text
    body = html_bodies(at)
    assert '<ins class="mn-ins">&lt;b&gt;Zeppelin&lt;/b&gt; navigator</ins>' in body
    assert "<b>Zeppelin</b>" not in body and f"<b>{gained}</b>" in body
    assert '<del class="mn-del">' in body
    pick = widget(at.selectbox, "Before / after")
    assert pick.value == moved_after.id and pick.options[0].startswith("changed · What does Jonas do")
    # every question, the unchanged one unticked; the comparison still opens on the changed one
    toggle = next(t for t in at.toggle if t.key.startswith(ONLY_KEY))
    toggle.set_value(False).run()
    no_errors(at)
    table = at.dataframe[-1].value
    assert dict(zip(table["question"], table["changed"], strict=True)) == {
        "Which city did Maya move to?": False, "What does Jonas do for work?": True}
    pick = widget(at.selectbox, "Before / after")
    assert pick.options[pick.index].startswith("changed · What does Jonas do")
