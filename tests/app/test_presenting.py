"""What a presenter, an analyst and an annotator tripped over (issue 25): episode tags in the
timeline's colours, the Episodes page drawing the open episode once, Evaluate naming its
categories and giving answers room, Home's number headers over their numbers, and the backend
said as a word."""

from __future__ import annotations

import re
from datetime import datetime

from components import eval_view, html_table, transcript
from components.theme import THEME_COLORS
from memory_core.eval_rows import EvalRow
from memory_core.eval_summary import EvalSummary
from memory_core.models import Episode, ThemeType
from memory_core.services.evaluating import EvalReport
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors


def _episode(n: int, kind: ThemeType) -> Episode:
    return Episode(id=f"c:S1:E{n}", conv_id="c", session=1, turn_ids=(f"D1:{n}",), theme=("x",),
                   theme_type=kind, start_time=datetime(2024, 1, 1))


def test_an_episode_band_and_tag_have_its_kinds_colour_as_the_timeline_legend() -> None:
    kinds = (ThemeType.EVENT, ThemeType.TOPIC, ThemeType.ENTITY, ThemeType.EVENT)
    episodes = [_episode(i + 1, kind) for i, kind in enumerate(kinds)]
    turns = [transcript.TurnView(id=f"D1:{i + 1}", speaker="Ana", text="hi", session=1)
             for i in range(len(kinds))]
    html = transcript.transcript_html(turns, episodes)
    bands = re.findall(r'class="mn-episode" style="border-left-color:([^;]+);', html)
    tags = re.findall(r'class="mn-tag" style="background:([^"]+)"', html)
    assert bands == tags == [THEME_COLORS[k.value] for k in kinds]


def test_episodes_draws_the_open_episodes_turns_once(open_app, app_services) -> None:
    at = open_app("pages/episodes.py", conv=SAMPLE_ID)
    no_errors(at)
    picked = at.session_state["episode_pick"]
    chosen = next(e for e in app_services.builds.episodes(SAMPLE_ID) if e.id == picked)
    body = html_bodies(at)
    for tid in chosen.turn_ids:
        anchor = "turn-" + "".join(c if c.isalnum() else "-" for c in tid)
        assert body.count(f'id="{anchor}"') == 1, tid
    assert "turns are shown above, not again here" in all_text(at)


def _report() -> eval_view.EvalRun:
    rows = [EvalRow(conv_id="c", qid=i, category=cat, question=f"q{i}", gold="g", answer="a long answer " * 8,
                    dia_ids=[], context_tokens=10, latency_s=0.1, strategy="bm25", plan_retrieve_s=0.01,
                    budget_tokens=None, backend="offline", answer_f1=0.5, trace_id="", support="supported",
                    evidence=[], evidence_rank={})
            for i, cat in enumerate((4, 2, 1, 3))]
    return eval_view.EvalRun(EvalReport(strategy="bm25", budget_tokens=None, backend="offline", rows=rows,
                                        summary=EvalSummary(), conv_ids=["c"], seconds=0.0))


def test_evaluate_names_categories_as_its_chart_does() -> None:
    rows = eval_view.table_rows(_report(), {})
    assert [r.category for r in rows] == ["single-hop", "temporal", "multi-hop", "open-domain"]
    assert eval_view.category_name("temporal-reasoning") == "temporal-reasoning"  # LongMemEval types


def test_evaluate_gives_the_question_and_the_answer_wide_columns() -> None:
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from components import eval_view as view
        from tests.app.test_presenting import _report as report

        view.question_table(report(), {})

    at = AppTest.from_function(page).run()
    assert not at.exception
    frame = at.dataframe[0]
    config = frame.proto.columns
    assert '"answer"' in config and re.search(r'"answer":\{[^}]*"width":"large"', config.replace(" ", ""))
    assert re.search(r'"question":\{[^}]*"width":"large"', config.replace(" ", ""))
    order = list(frame.proto.column_order)
    assert order.index("answer") < order.index("category") and order.index("answer") <= 2


def test_home_number_headers_sit_over_their_numbers() -> None:
    html = html_table.table_html(("name", "turns"), [{"name": "a", "turns": 3}, {"name": "b", "turns": 12}])
    heads = re.findall(r'<th style="([^"]*)">([^<]*)</th>', html)
    align = {name: m.group(1) for style, name in heads if (m := re.search(r"text-align:(\w+)", style))}
    assert align == {"name": "left", "turns": "right"}


def test_home_says_the_backend_as_a_word_not_a_big_figure(open_app) -> None:
    at = open_app(conv=SAMPLE_ID)
    no_errors(at)
    assert "Backend" not in {m.label for m in at.metric}
    assert any("offline backend" in c.value for c in at.caption)
