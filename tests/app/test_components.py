"""Component functions without a running app: escaping, highlights, transcript HTML, graphs."""

from __future__ import annotations

import html
import re
from datetime import date, datetime

import networkx as nx

from components import graph
from components.text import anchor_id, esc, md
from components.transcript import TurnView, highlight_html, transcript_html
from memory_core.graph_view import GraphView, view_of
from memory_core.models import Episode, Record, ThemeType

NASTY = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[x](javascript:alert(3))",
         "**bold** _it_ `code` $x^2$ :red[hi] # head", "a & b &amp; c", "trip\u202egnp.exe"]


def test_md_neutralises_every_markdown_and_html_construct() -> None:
    for s in NASTY:
        out = md(s)
        bare = re.sub(r"&#\d+;", "", out)  # what is left besides character references
        assert not any(c in bare for c in "<>[]()*_`$:#&"), out
        assert html.unescape(out).replace("\\u202e", "\u202e") == s.replace("\n", " ")


def test_esc_escapes_quotes_and_tags_and_shows_bidi_controls() -> None:
    assert esc('"><script>') == "&quot;&gt;&lt;script&gt;"
    assert "\u202e" not in esc("trip\u202egnp.exe") and "\\u202e" in esc("trip\u202egnp.exe")


def test_highlights_are_clamped_merged_and_escaped() -> None:
    text = "Eve <b>met</b> Sam in Paris"
    out = highlight_html(text, [(0, 3, "entity"), (22, 27, "place"), (21, 24, "x"), (40, 50, "out")])
    assert out.startswith('<mark title="entity">Eve</mark> &lt;b&gt;met')
    assert out.endswith("<mark title=\"x\"> Paris</mark>")
    assert highlight_html("<i>", [(0, 3, "<s>")]) == '<mark title="&lt;s&gt;">&lt;i&gt;</mark>'


def test_transcript_bands_chips_and_anchors() -> None:
    t = datetime(2023, 5, 1, 10, 0)
    turns = [TurnView(f"D1:{i}", "Eve <x>", f"text {i} <script>", 1, t) for i in range(1, 5)]
    ep = Episode(id="c:S1:E1", conv_id="c", session=1, turn_ids=("D1:1", "D1:2"), theme=("<b>trip</b>",),
                 theme_type=ThemeType.EVENT, boundary_reason="shift <i>")
    rec = Record(id="r1", conv_id="c", episode_id=ep.id, entity="Eve <x>", entity_type="person",
                 property="likes", value="<img src=x onerror=alert(1)>", evidence_turn_ids=("D1:2",))
    out = transcript_html(turns, [ep], [rec], evidence=["D1:2"], cited=["D1:1"])
    assert out.count('class="mn-episode"') == 1 and out.count('class="mn-plain"') == 1
    assert 'id="turn-D1-2"' in out and 'class="mn-turn mn-evidence"' in out
    assert "&lt;b&gt;trip&lt;/b&gt;" in out and "shift &lt;i&gt;" in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out
    assert "<script" not in out and "<img" not in out and "<b>" not in out.replace("<b>c:S1:E1</b>", "")
    live = transcript_html(turns, [ep], [], pending_note="segmenting <now>")
    assert 'class="mn-pending"' in live and "segmenting &lt;now&gt;" in live
    assert anchor_id("D4:8") == "turn-D4-8"


def _graph() -> GraphView:
    g = nx.MultiDiGraph()
    for i in range(50):
        g.add_node(f"n{i}", name=f"N{i} <b>", type="person" if i % 2 else "place", importance=i / 50)
    for i in range(49):
        g.add_edge(f"n{i}", f"n{i + 1}", key="p", property="knows" if i % 3 else "visited",
                   record_ids=[f"r{i}"], first_mentioned=f"2023-0{1 + i % 9}-01T00:00:00")
    return view_of(g)


def test_filter_graph_limits_types_properties_window_and_ego() -> None:
    g = _graph()
    v = graph.filter_graph(g, limit=10)
    assert (v.matching, v.shown) == (50, 10)
    assert all(n.importance >= 0.8 for n in v.graph.nodes)
    assert all(graph.type_of(n) == "place" for n in graph.filter_graph(g, types=["place"]).graph.nodes)
    props = graph.filter_graph(g, properties=["visited"], limit=None).graph
    assert {e.label for e in props.edges} == {"visited"}
    window = graph.filter_graph(g, window=(date(2023, 1, 1), date(2023, 1, 31)), limit=None).graph
    assert len(window.edges) > 0
    assert all(e.first_mentioned.startswith("2023-01") for e in window.edges)
    ego = graph.filter_graph(g, ego="n10", depth=2, limit=None).graph
    assert set(ego.ids()) == {"n8", "n9", "n10", "n11", "n12"}
    assert g.neighbourhood("n10", 0) == {"n10"} and g.neighbourhood("nowhere", 2) == set()


def test_graph_view_helpers_keep_the_order_and_leave_the_view_alone() -> None:
    g = _graph()
    ids = g.ids()
    sub = g.subgraph({"n3", "n1", "n2", "n40"})
    assert sub.ids() == ["n1", "n2", "n3", "n40"]  # in the view's order, not the set's
    assert [(e.source, e.target) for e in sub.edges] == [("n1", "n2"), ("n2", "n3")]
    rest = g.without({"n0", "n49"})
    assert len(rest.nodes) == 48 and all("n0" not in (e.source, e.target) for e in rest.edges)
    visited = g.keeping(lambda e: e.label == "visited")
    assert visited.ids() == ids and {e.label for e in visited.edges} == {"visited"}
    assert g.ids() == ids and len(g.edges) == 49  # a view is a value: nothing above changed it
    assert "n7" in g and "nowhere" not in g and g.node("n7") is not None and g.node("nowhere") is None


def test_a_record_line_says_when_the_record_is_denied_planned_or_wished() -> None:
    from components.plain_words import record_line
    from memory_core.models import Modality

    rec = Record(id="c:S1:E1:R1", conv_id="c", episode_id="c:S1:E1", entity="user", entity_type="person",
                 property="uses", value="a pressure cooker", evidence_turn_ids=("D1:4",))
    assert record_line(rec) == "user · uses · a pressure cooker"
    # "I have never used a pressure cooker" must not read as a use
    denied = rec.model_copy(update={"modality": Modality.NEGATED})
    assert record_line(denied) == "user · uses · a pressure cooker (denied)"
    planned = rec.model_copy(update={"modality": Modality.PLANNED, "condition": "it rains"})
    assert record_line(planned) == "user · uses · a pressure cooker, if it rains (planned)"
