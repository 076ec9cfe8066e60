"""Compare strategies: turns only one strategy found, answers that differ, which is right when
the question is a benchmark question."""

from __future__ import annotations

from datetime import datetime

from components.compare_view import differences, verdict
from memory_core.eval.metrics import normalise_answer, token_f1
from memory_core.models import Answer, BufferTurn, Plan, Trace
from tests.app.conftest import SAMPLE_ID, all_text, button, full_trace, no_errors, widget


def _trace(strategy: str, turns: list[str], answer: str) -> Trace:
    return Trace(id=strategy, conv_id="c", question="?", strategy=strategy, backend="offline",
                 plan=Plan(question="?"), answer=Answer(text=answer), created_at=datetime(2024, 1, 1),
                 buffer=tuple(BufferTurn(turn_id=t, speaker="Ana", text=f"text of {t}", session=1)
                              for t in turns))


def test_differences_name_own_turns_same_answers_and_the_right_one() -> None:
    traces = [_trace("a", ["D1:1", "D1:2", "D2:1"], "Porto."), _trace("b", ["D1:1", "D3:4"], "the porto"),
              _trace("c", ["D1:1", "D1:2"], "Lisbon")]
    a, b, c = differences(traces, gold_answer="Porto", gold_evidence=["D3:4"])
    assert a.only_here == ["D2:1"] and b.only_here == ["D3:4"] and c.only_here == []
    assert a.same_answer_as == ["b"] and b.same_answer_as == ["a"] and c.same_answer_as == []
    assert (a.gold_found, b.gold_found, c.gold_found) == (0, 1, 0)
    assert (a.right, b.right, c.right) == (True, True, False)
    assert verdict([a, b, c]) == ("The answers differ: 2 different answers from 3 strategies. "
                                  "Right by the gold answer: a, b.")
    same = differences(traces[:2])
    assert verdict(same) == "All strategies gave the same answer." and same[0].right is None


def test_compare_on_a_benchmark_question_highlights_what_differs(open_app, app_services) -> None:
    gold = next(q for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.answer and q.evidence)
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=240)
    widget(at.text_input, "Question").input(gold.question)
    button(at, "Ask").click().run()
    full_trace(at)  # the comparison sits with the full trace
    widget(at.multiselect, "Strategies").set_value(["ensimem", "bm25", "seem"]).run()
    button(at, "Compare").click().run()
    no_errors(at)
    traces = [app_services.queries.trace(i) for i in at.session_state["compare"]["ids"]]
    table = next(d.value for d in at.dataframe if "turns only this one found" in d.value.columns)
    assert list(table["strategy"]) == ["ensimem", "bm25", "seem"]
    for k, t in enumerate(traces):  # recounted from the stored traces
        others = {b.turn_id for j, o in enumerate(traces) if j != k for b in o.buffer}
        own = [b.turn_id for b in t.buffer if b.turn_id not in others]
        assert table["turns only this one found"][k] == len(own)
        if own:
            assert any(e.label == f"Turns only {t.strategy} found ({len(own)})" for e in at.expander)
        assert f"only here ({len(own)})" in all_text(at)
    assert {"answer F1 vs gold", "right?", "gold evidence in buffer"} <= set(table.columns)
    text = all_text(at).replace("**", "")
    answers = {" ".join(normalise_answer(t.answer.text)) for t in traces}
    if len(answers) == 1:
        assert "All strategies gave the same answer." in text
    else:
        assert f"The answers differ: {len(answers)} different answers from 3 strategies." in text
    right = [t.strategy for t in traces if token_f1(t.answer.text, str(gold.answer)) >= 0.5]
    assert (f"Right by the gold answer: {', '.join(right)}." if right
            else "None matches the gold answer.") in text


def test_hostile_turns_stay_text_in_the_comparison(open_app) -> None:
    from tests.app.conftest import HOSTILE_ID
    from tests.app.test_hostile import assert_inert

    at = open_app("pages/ask.py", conv=HOSTILE_ID, timeout=240)
    widget(at.text_input, "Question").input("What did Eve say about the script?")
    button(at, "Ask").click().run()
    full_trace(at)
    widget(at.multiselect, "Strategies").set_value(["ensimem", "bm25", "seem"]).run()
    button(at, "Compare").click().run()
    no_errors(at)
    body = assert_inert(at)
    assert "Turns only" in " ".join(e.label for e in at.expander) or "only here" in body + all_text(at)
