"""Issue 7.2 — conversation text is data everywhere.

Static checks over every Python file of the product (``memory_core/``, ``components/``,
``pages/``, ``app.py``): no ``unsafe_allow_html``; raw-HTML sinks (``st.html``, ``.html(...)``,
``st.iframe``) only inside an allow-list of component functions, each of which is fed hostile
text below and must emit no markup of its own making; SQL built only from constants; nothing
unpickled or evaluated. Then LLM output: a malformed or out-of-bounds reply is refused by the
public parsing/conversion functions.
"""

from __future__ import annotations

import ast
import re
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from memory_core.record_filter import RecordFilter

as_filter = RecordFilter.of  # loose test input -> the typed filter

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [
    "<script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "</script><script>alert(2)</script>",
    "[click](javascript:alert(3))",
    "<a href=\"javascript:alert(4)\">link</a>",
    "\u202eexe.gnp",
]


def product_files() -> list[Path]:
    files = [*(ROOT / "memory_core").rglob("*.py"), *(ROOT / "components").glob("*.py"),
             *(ROOT / "pages").glob("*.py")]
    if (ROOT / "app.py").exists():
        files.append(ROOT / "app.py")
    return sorted(files)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


class _Calls(ast.NodeVisitor):
    """Every call with the name of its enclosing top-level function (or <module>)."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.calls: list[tuple[str, ast.Call]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append((self.stack[0] if self.stack else "<module>", node))
        self.generic_visit(node)


def calls(path: Path) -> list[tuple[str, ast.Call]]:
    visitor = _Calls()
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return visitor.calls


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{dotted(node.func)}()"
    return "?"


# ---------------------------------------------------------------------------- HTML sinks
# (file, function) allowed to hand HTML to the browser; each builds it from escaped parts
# (components/text.esc) and is exercised with hostile text below.
HTML_SINKS = {
    ("components/theme.py", "inject_css"),  # a constant stylesheet
    ("components/trace_view.py", "answer"),  # answer_html
    ("components/trace_view.py", "comparison"),  # answer_html
    ("components/transcript.py", "render"),  # transcript_html
    ("components/build_view.py", "_draw_session"),  # transcript_html
    ("components/graph_panel.py", "_show"),  # kind_html, facts_html, records_html
    ("components/links.py", "show"),  # record_caption, ids_html, *_link
    ("components/compare_view.py", "render"),  # only_here_html
    ("components/history_view.py", "diff"),  # diff_html
    ("components/html_table.py", "render"),  # table_html
    ("components/impact_view.py", "render"),  # changes_html
    ("components/story_view.py", "render"),  # answer_html, records_html, transcript_html (test_hostile)
}
UNSAFE_ALLOWED: set[tuple[str, str]] = set()  # nothing may pass unsafe_allow_html=True


def test_no_unsafe_allow_html_outside_the_allow_list() -> None:
    offenders = []
    for path in product_files():
        for func, call in calls(path):
            for kw in call.keywords:
                if kw.arg == "unsafe_allow_html" and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    if (rel(path), func) not in UNSAFE_ALLOWED:
                        offenders.append(f"{rel(path)}:{call.lineno} in {func}()")
    assert offenders == []


def test_raw_html_sinks_only_in_allow_listed_component_functions() -> None:
    offenders, seen = [], set()
    for path in product_files():
        for func, call in calls(path):
            name = dotted(call.func)
            sink = name.endswith((".html", ".iframe")) and not name.startswith(("html.", "self."))
            sink = sink or name.endswith("components.v1.html") or name == "html"
            if not sink or name.endswith(("generate_html", "to_html")):
                continue
            seen.add((rel(path), func))
            if (rel(path), func) not in HTML_SINKS:
                offenders.append(f"{rel(path)}:{call.lineno} {name}() in {func}()")
    assert offenders == [], "raw HTML reaches the browser outside the reviewed components"
    assert seen, "the scan found no HTML sink at all: it is not looking at the front end"


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.bad_attrs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                self.bad_attrs.append(f"{tag} {name}={value}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def markup(html: str) -> _Markup:
    parser = _Markup()
    parser.feed(html)
    return parser


def test_transcript_and_answer_html_escape_every_hostile_string() -> None:
    from types import SimpleNamespace
    from typing import cast

    from components.trace_view import answer_html
    from components.transcript import transcript_html
    from memory_core.models import Answer, Episode, Record, Trace, Turn

    turns = [Turn(id=f"D1:{i + 1}", session=1, index=i, speaker=h, text=h, image_caption=h,
                  session_time=datetime(2023, 5, 8)) for i, h in enumerate(HOSTILE)]
    episode = Episode(id="c:S1:E1", conv_id="c", session=1, turn_ids=tuple(t.id for t in turns),
                      theme=tuple(HOSTILE[:3]), boundary_reason=HOSTILE[1])
    records = [Record(id=f"c:S1:E1:R{i}", conv_id="c", episode_id=episode.id, entity=h, entity_type="person",
                      property=h, value=h, evidence_turn_ids=(turns[i].id,)) for i, h in enumerate(HOSTILE)]
    html = transcript_html(turns, [episode], records, highlights={"D1:1": [(0, 8, HOSTILE[2])]},
                           evidence=["D1:1"], cited=["D1:2"])
    parsed = markup(html)
    assert set(parsed.tags) <= {"div", "span", "mark", "b", "a", "br", "i", "small", "details", "summary"}
    assert parsed.bad_attrs == []
    shown = "".join(parsed.text)
    assert all(h in shown for h in HOSTILE[:6])  # shown as text, exactly as typed

    answer = Answer(text=HOSTILE[0] + HOSTILE[1], cited_turn_ids=(HOSTILE[3],))
    trace = cast(Trace, SimpleNamespace(answer=answer))  # answer_html reads the answer only
    parsed = markup(answer_html(trace))
    assert "script" not in parsed.tags and "img" not in parsed.tags and parsed.bad_attrs == []


def test_compare_and_history_diff_escape_every_hostile_string() -> None:
    from components.compare_view import only_here_html
    from components.history_view import diff_html
    from memory_core.models import BufferTurn

    by_id = {h: BufferTurn(turn_id=h, speaker=h, text=h, session=1) for h in HOSTILE}
    html = only_here_html(list(HOSTILE), by_id, {HOSTILE[0]})
    html += diff_html([(h, h, HOSTILE[(i + 1) % len(HOSTILE)]) for i, h in enumerate(HOSTILE)])
    parsed = markup(html)
    assert "script" not in parsed.tags and "img" not in parsed.tags and "svg" not in parsed.tags
    assert parsed.bad_attrs == []
    shown = "".join(parsed.text)
    assert all(h in shown for h in HOSTILE[:6])


def test_the_impact_diff_escapes_every_hostile_string() -> None:
    from components.impact_view import changes_html
    from memory_core.impact_report import ImpactRow

    rows = [ImpactRow(question=h, strategy="bm25", before_trace_id="", after_trace_id="", before_answer=h,
                      after_answer=HOSTILE[(i + 1) % len(HOSTILE)], answer_changed=True, plan_changed=False,
                      cited_added=(h,), cited_removed=(h,))
            for i, h in enumerate(HOSTILE)]
    parsed = markup(changes_html(rows, {}))
    assert "script" not in parsed.tags and "img" not in parsed.tags and "svg" not in parsed.tags
    assert parsed.bad_attrs == []
    assert all(h in "".join(parsed.text) for h in HOSTILE[:6])


def test_graph_panel_and_links_escape_every_hostile_string() -> None:
    from types import SimpleNamespace
    from typing import cast

    from components import links
    from components.graph_panel import facts_html, kind_html, records_html
    from memory_core.models import Record

    records = [Record(id=f"c:S1:E1:R{i}", conv_id="c", episode_id="c:S1:E1", entity=h, entity_type="person",
                      property=h, value=h, evidence_turn_ids=("D1:1",)) for i, h in enumerate(HOSTILE)]
    conv = HOSTILE[5]  # even a hostile conversation id stays inside the address
    html = "".join([
        records_html(conv, records), kind_html(HOSTILE[1]),
        facts_html(conv, [(h, h) for h in HOSTILE], people=HOSTILE, episodes=[(h, h) for h in HOSTILE]),
        links.entity_link(conv, HOSTILE[0]), links.record_link(conv, HOSTILE[2]),
        links.ids_html(conv, "trace", HOSTILE),
    ])
    html += links.record_caption_html(conv, cast(Record, SimpleNamespace(
        id=HOSTILE[0], status=HOSTILE[1], version=2, origin=HOSTILE[2], episode_id=HOSTILE[3])), HOSTILE[4])
    parsed = markup(html)
    assert set(parsed.tags) <= {"div", "span", "a", "b"}
    assert parsed.bad_attrs == []
    assert all(h in "".join(parsed.text) for h in HOSTILE[:6])
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs and all(h.startswith(("records?", "episodes?", "ask?")) for h in hrefs)


def test_graph_canvas_sends_labels_as_data_and_draws_them_as_text() -> None:
    import json as _json

    import networkx as nx

    from components.graph_canvas import _ASSETS, payload
    from memory_core.graph_view import view_of

    g = nx.MultiDiGraph()
    for i, h in enumerate(HOSTILE):
        g.add_node(h, name=h, type=h, aliases=[h], participants=[h], place=h, importance=0.5)
    g.add_edge(HOSTILE[0], HOSTILE[1], property=HOSTILE[3], record_ids=["r1"], importance=0.3)
    data = payload(view_of(g), name="t")
    text = _json.dumps(data)
    assert _json.loads(text) == data  # plain JSON data (sent as the component's data, never as markup)
    assert {n["id"] for n in data["nodes"]} == set(HOSTILE)
    labels = "".join(n["label"] for n in data["nodes"])
    assert "\u202e" not in labels and "\\u202e" in labels  # the bidi override shown, not acting
    js = (_ASSETS / "graph_canvas.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, f"the canvas script uses {sink}"
    assert "textContent" in js


# ---------------------------------------------------------------------------- SQL
SQL_CALLS = ("execute", "executemany", "all", "one", "scalar", "dicts", "sql")
# a reviewer's marker on dynamic SQL built from constants (ruff drops an S608 noqa it does not need)
SQL_MARKERS = ("noqa: S608", "# sql: constants")


def sql_offenders(where_file: str, text: str) -> list[str]:
    """Dynamic SQL must sit in memory_core/store, carry a reviewed marker (``# noqa: S608`` or
    ``# sql: constants``) and interpolate no parameter that carries user values."""
    source = text.splitlines()
    offenders = []
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in SQL_CALLS and node.args):
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) or not _looks_like_sql(first):
            continue
        where = f"{where_file}:{node.lineno}"
        if not where_file.startswith("memory_core/store/"):
            offenders.append(f"{where}: SQL built outside memory_core/store")
            continue
        line = " ".join(source[node.lineno - 1:node.lineno + 1])
        if not any(m in line for m in SQL_MARKERS) and isinstance(first, ast.JoinedStr | ast.BinOp):
            offenders.append(f"{where}: dynamic SQL without a reviewed marker")
        used = {n.id for n in ast.walk(first) if isinstance(n, ast.Name)}
        risky = used & USER_VALUES
        if risky:
            offenders.append(f"{where}: SQL text interpolates {sorted(risky)}")
    return offenders


USER_VALUES = {"query", "text", "name", "names", "value", "question", "who", "why", "conv_id", "filters",
               "raw", "sort", "record_id", "entity"}


def test_sql_is_built_only_from_constants() -> None:
    offenders = [o for p in product_files() for o in sql_offenders(rel(p), p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_sql_scan_catches_interpolated_user_text() -> None:
    bad = 'def f(store, name):\n    store.all(f"SELECT * FROM records WHERE entity = \'{name}\'")\n'
    assert sql_offenders("memory_core/query/x.py", bad) == ["memory_core/query/x.py:2: SQL built outside "
                                                           "memory_core/store"]
    found = sql_offenders("memory_core/store/x.py", bad)
    assert len(found) == 2 and "interpolates ['name']" in found[1]


def _looks_like_sql(node: ast.AST) -> bool:
    literal = " ".join(n.value for n in ast.walk(node)
                       if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return bool(re.search(r"\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|CREATE)\b", literal))


def test_only_the_store_opens_duckdb() -> None:
    offenders = []
    for path in product_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] in ("duckdb", "sqlite3") for n in names) \
                    and not rel(path).startswith("memory_core/store/"):
                offenders.append(rel(path))
    assert offenders == []


def test_hostile_text_is_stored_and_searched_as_data(store) -> None:
    from memory_core.models import Conversation, Episode, Record, Session, Turn

    evil = "x'); DROP TABLE records; --"
    turns = (Turn(id="D1:1", session=1, index=0, speaker=evil, text=evil),)
    store.save_conversation(Conversation(id=evil, speakers=(evil,),
                                         sessions=(Session(index=1, turns=turns),)))
    episode = Episode(id=f"{evil}:S1:E1", conv_id=evil, session=1, turn_ids=("D1:1",))
    record = Record(id="r'1", conv_id=evil, episode_id=episode.id, entity=evil, entity_type="person",
                    property="says", value=evil, evidence_turn_ids=("D1:1",))
    store.save_session_memory(evil, 1, [episode], [record], [], backend="offline")
    rows, total = store.search_records(evil, query=evil, sort="-value",
                                       filters=RecordFilter(entity=(evil,), property=("says",)))
    assert total == 1 and rows[0].value == evil
    assert store.stats(evil)["records"] == 1 and store.turns(evil)[0].text == evil


# ---------------------------------------------------------------------------- deserialisation
RISKY_CALLS = {
    "pickle.load", "pickle.loads", "marshal.load", "marshal.loads", "shelve.open", "joblib.load",
    "dill.load", "dill.loads", "cloudpickle.load", "cloudpickle.loads", "torch.load", "pd.read_pickle",
    "pandas.read_pickle", "yaml.load", "yaml.unsafe_load", "numpy.load", "np.load",
}


def test_nothing_is_unpickled_or_evaluated() -> None:
    offenders = []
    for path in product_files():
        for func, call in calls(path):
            name = dotted(call.func)
            arrays_only = name in ("np.load", "numpy.load") and any(
                kw.arg == "allow_pickle" and isinstance(kw.value, ast.Constant) and kw.value.value is False
                for kw in call.keywords)  # an .npz of plain arrays: nothing is unpickled
            if (name in RISKY_CALLS and not arrays_only) or name in ("eval", "exec", "builtins.eval",
                                                                     "builtins.exec") \
                    or name.endswith(".read_pickle"):
                offenders.append(f"{rel(path)}:{call.lineno} {name}() in {func}()")
            for kw in call.keywords:
                if kw.arg == "allow_pickle" and not (
                        isinstance(kw.value, ast.Constant) and not kw.value.value):
                    offenders.append(f"{rel(path)}:{call.lineno} allow_pickle")
    assert offenders == []


# ---------------------------------------------------------------------------- LLM output
@pytest.mark.parametrize("reply", [
    "", "I cannot help with that.", '{"records": "not a list"}', '{"records": [{"entity": 3}]',
    '```json\n{"records": {"entity": "x"}}\n```', "[1, 2, 3]",
])
def test_malformed_llm_replies_are_refused(reply: str) -> None:
    from memory_core.backends.openai.prompts.plan import PlanReply
    from memory_core.llm.parsing import parse_reply

    with pytest.raises(ValueError, match=r"\S"):
        parse_reply(reply.replace("records", "requirements"), PlanReply)


def test_llm_plan_with_unusable_parts_is_repaired_or_refused() -> None:
    from memory_core.backends.openai.prompts.plan import PlanReply, to_plan

    bad = PlanReply.model_validate({"reasoning_type": "<b>guess</b>", "scope": "everything",
                                    "requirements": [{"entity": "", "property": ""},
                                                     {"entity": "Ana", "role": {"x": 1}, "depends_on": 7}]})
    checked = to_plan(bad, "what?")
    assert checked.value is not None
    (req,) = checked.value.requirements
    assert (req.entity, req.role, req.depends_on) == ("Ana", "target", None)
    assert checked.value.reasoning_type.value == "point" and len(checked.problems) >= 4
    empty = to_plan(PlanReply.model_validate({"requirements": [{"value": "x"}]}), "what?")
    assert empty.value is None and "no usable requirement" in empty.problems[-1]


def test_llm_records_outside_their_episode_or_ungrounded_are_dropped() -> None:
    from memory_core.backends.openai.prompts.extract import ExtractReply, to_extraction
    from memory_core.contracts import ConversationInfo
    from memory_core.models import Episode, Turn

    turns = [Turn(id="D1:1", session=1, index=0, speaker="Ana", text="I adopted a cat called Miso."),
             Turn(id="D1:2", session=1, index=1, speaker="Ben", text="Lovely!")]
    episode = Episode(id="c:S1:E1", conv_id="c", session=1, turn_ids=("D1:1", "D1:2"))
    reply = ExtractReply.model_validate({"records": [
        {"entity": "Ana", "entity_type": "person", "property": "pet", "value": "Miso", "evidence": ["D1:1"]},
        {"entity": "Ana", "entity_type": "person", "property": "pet", "value": "Rex", "evidence": ["D9:9"]},
        {"entity": "<script>alert(1)</script>", "entity_type": "person", "property": "owns",
         "value": "x", "evidence": ["D1:2"]},
        {"entity": "Ben", "entity_type": "spaceship", "property": "says", "value": "lovely",
         "modality": "surely", "evidence": ["D1:2"]},
    ]})
    checked = to_extraction(reply, episode, turns, ConversationInfo("c", ("Ana", "Ben")))
    assert checked.value is not None
    kept = [(r.entity, r.value, r.entity_type, r.modality.value) for r in checked.value.records]
    assert kept == [("Ana", "Miso", "person", "observed"), ("Ben", "lovely", "other", "observed")]
    assert all(set(r.evidence_turn_ids) <= set(episode.turn_ids) for r in checked.value.records)
    assert any("not in this episode" in p for p in checked.problems)
    assert any("does not occur in the episode" in p for p in checked.problems)
