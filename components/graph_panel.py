"""The Graphs page's side panel: what the clicked node or edge is, its records (each a link
to the record), the episodes they come from, and its source turns highlighted.

An event shows who took part (each a link to their records), when, where, why and how.
``selection_key(kind)`` holds the current selection (a plain dict) in session state; the
canvas and the "Find a node" box both write it.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from components import data, graph, links, transcript
from components.graph_canvas import Selection, selection
from components.graph_style import action_family, type_color
from components.text import esc, md, shorten
from memory_core.graph_view import GraphNode, GraphView, ViewEdge
from memory_core.models import Record
from memory_core.services import MemoryServices

MAX_RECORDS = 200  # records listed for a node
MAX_EVIDENCE_RECORDS = 40  # records whose source turns are shown
SHOWN_RECORDS = 25  # record links drawn before "+N more"


def selection_key(kind: str) -> str:
    return f"g:sel:{kind}"


def current(kind: str) -> Selection | None:
    return selection(st.session_state.get(selection_key(kind)))


def select(kind: str, value: Selection | None) -> None:
    st.session_state[selection_key(kind)] = None if value is None else {"kind": value.kind, "id": value.id}


def _find_changed(kind: str, box: str) -> None:
    node = st.session_state.get(box)
    select(kind, Selection("node", str(node)) if node is not None else None)


def find_box(view: GraphView, kind: str) -> None:
    """A keyboard way to the same panel: pick a node by name."""
    box = f"g:find:{kind}"
    chosen = current(kind)
    degree = view.degree()
    nodes = sorted(view.nodes, key=lambda n: (-n.importance, -degree[n.id], n.id))
    labels = {n.id: n.label for n in nodes}
    ids = [n.id for n in nodes]
    if chosen is not None and chosen.kind == "node" and chosen.id in labels:
        st.session_state[box] = chosen.id
    elif st.session_state.get(box) not in labels:
        st.session_state[box] = None
    st.selectbox("Find a node", [None, *ids], key=box, on_change=_find_changed, args=(kind, box),
                 format_func=lambda n: "(click the graph, or pick a name)" if n is None
                 else shorten(labels[n], 60), placeholder="type a name")


def records_html(conv: str, records: Sequence[Record]) -> str:
    """A list of records, each a link that opens it on the Records page (escaped)."""
    items = []
    for r in records[:SHOWN_RECORDS]:
        status = str(getattr(r.status, "value", r.status))
        cls = "mn-chip mn-wrong" if status in ("wrong", "deleted") else "mn-chip"
        label = f"{r.entity} · {r.property} = {shorten(r.value, 60)}"
        items.append(f'<a class="{cls}" href="{esc(links.href_record(conv, r.id))}" '
                     f'title="{esc(r.id)}">{esc(label)}</a>')
    more = len(records) - SHOWN_RECORDS
    tail = f'<span class="mn-chip">+{more} more</span>' if more > 0 else ""
    return f'<div class="mn-recs">{"".join(items)}{tail}</div>'


def facts_html(conv: str, facts: Sequence[tuple[str, str]], people: Sequence[str] = (),
               episodes: Sequence[tuple[str, str]] = ()) -> str:
    """Label/value lines; ``people`` as entity links, ``episodes`` (id, label) as episode links."""
    rows = [f"<div><b>{esc(k)}</b>: {esc(v)}</div>" for k, v in facts if v]
    if people:
        rows.append("<div><b>who</b>: " + ", ".join(links.entity_link(conv, p) for p in people) + "</div>")
    if episodes:
        rows.append("<div><b>episode</b>: " + ", ".join(
            links.episode_link(conv, eid, label) for eid, label in episodes) + "</div>")
    return f'<div class="mn-facts">{"".join(rows)}</div>'


def kind_html(kind: str) -> str:
    color = type_color(kind)  # from a fixed palette or a hash: never user text
    return f'<span class="mn-chip" style="border-color:{color};color:{color}">{esc(kind)}</span>'


def _show(*parts: str) -> None:
    """The panel's one HTML sink: parts from ``kind_html``, ``facts_html`` and ``records_html``,
    each built from escaped pieces."""
    st.html("".join(parts))


def _header(title: str, kind: str) -> None:
    st.markdown(f"#### {md(shorten(title, 90))}")
    _show(kind_html(kind))


def panel(svc: MemoryServices, conv: str, view: GraphView, kind: str, episode_labels: dict[str, str], *,
          as_of_ids: frozenset[str] | None = None) -> None:
    """Draw the panel for the current selection (or a hint when nothing is selected).

    ``view``: the graph as drawn (typed nodes and edges). ``as_of_ids``: with a "Memory as of"
    date, the records as of then — only these are listed.
    """
    find_box(view, kind)
    sel = current(kind)
    if sel is None:
        st.caption("Click a node or an edge to see its records, episode and source turns.")
        return
    if sel.kind == "node":
        node = view.node(sel.id)
        if node is None:
            st.caption("The selected node is not in this view (filters changed).")
            return
        if kind == "event":
            _event(svc, conv, node, episode_labels)
        else:
            _entity(svc, conv, view, node, episode_labels, as_of_ids)
        return
    edge = view.edge(sel.id)
    if edge is None:
        st.caption("The selected edge is not in this view (filters changed).")
        return
    _edge(svc, conv, view, edge, kind, episode_labels, as_of_ids)


def _then(records: Sequence[Record], as_of_ids: frozenset[str] | None) -> list[Record]:
    """The records as of the chosen day (all of them without a day)."""
    return list(records) if as_of_ids is None else [r for r in records if r.id in as_of_ids]


def _episodes_of(records: Sequence[Record], labels: dict[str, str]) -> list[tuple[str, str]]:
    ids = sorted(dict.fromkeys(r.episode_id for r in records), key=graph.episode_order)  # session order
    return [(e, labels.get(e, e)) for e in ids[:12]]


def _turns(svc: MemoryServices, conv: str, records: Sequence[Record], turn_ids: Sequence[str]) -> None:
    cited = [t for r in records[:MAX_EVIDENCE_RECORDS] for t in r.evidence_turn_ids]
    evidence = list(dict.fromkeys([*turn_ids, *cited]))
    if not evidence:
        st.caption("No source turns recorded.")
        return
    st.caption(f"Source turns ({len(evidence)}), highlighted")
    transcript.render(data.turns(svc, conv, evidence), records=records, evidence=evidence)


def _entity(svc: MemoryServices, conv: str, view: GraphView, node: GraphNode, labels: dict[str, str],
            as_of_ids: frozenset[str] | None = None) -> None:
    _header(node.label, graph.type_of(node))
    names = [node.label, *node.aliases]
    if node.record_ids:
        records = _then(data.records_by_ids(svc, node.record_ids), as_of_ids)
    else:  # records about it, and records naming it as their value ("moved to Paris")
        records = _then(svc.curation.records_naming(conv, names), as_of_ids)[:MAX_RECORDS]
    about = sum(1 for r in records if r.entity.strip().lower() in {n.strip().lower() for n in names})
    _show(facts_html(conv, [("aliases", ", ".join(node.aliases)), ("importance", f"{node.importance:.2f}"),
                              ("links in view", str(view.degree()[node.id]))],
                       episodes=_episodes_of(records, labels)))
    if about:
        links.page_link_entity(conv, node.label, about)
    if records:
        _show(records_html(conv, records))
    _turns(svc, conv, records, node.source_turn_ids)


def _event(svc: MemoryServices, conv: str, node: GraphNode, labels: dict[str, str]) -> None:
    action = node.action or node.label
    _header(action, action_family(action))
    when = " · ".join(x for x in (node.time_text, node.time) if x)
    episode = node.episode_id
    _show(facts_html(conv, [("when", when), ("where", node.place), ("why", node.cause), ("how", node.manner)],
                       people=list(node.participants),
                       episodes=[(episode, labels.get(episode, episode))] if episode else ()))
    _turns(svc, conv, [], node.source_turn_ids)


def _edge(svc: MemoryServices, conv: str, view: GraphView, edge: ViewEdge, kind: str, labels: dict[str, str],
          as_of_ids: frozenset[str] | None = None) -> None:
    u, v = view.node(edge.source), view.node(edge.target)
    name_u = u.label if u is not None else edge.source
    name_v = v.label if v is not None else edge.target
    st.markdown(f"#### {md(shorten(name_u, 40))} —{md(edge.label)}→ {md(shorten(name_v, 40))}")
    records = _then(data.records_by_ids(svc, edge.record_ids), as_of_ids)
    people = [name_u, name_v] if kind == "entity" else []
    extra = ", ".join(edge.labels) if kind == "event" else ""
    _show(facts_html(conv, [("relation", edge.label), ("details", extra),
                              ("first said", edge.first_mentioned)],
                       people=people, episodes=_episodes_of(records, labels)))
    if records:
        _show(records_html(conv, records))
    ends = [n for n in (u, v) if n is not None]
    turn_ids = [t for n in ends for t in n.source_turn_ids] if kind == "event" else []
    _turns(svc, conv, records, turn_ids)
