"""The Graphs page's side panel: what the clicked node or edge is, its records (each a link
to the record), the episodes they come from, and its source turns highlighted.

An event shows who took part (each a link to their records), when, where, why and how.
``selection_key(kind)`` holds the current selection (a plain dict) in session state; the
canvas and the "Find a node" box both write it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from components import data, graph, links, transcript
from components.graph_canvas import Selection, parse_edge_id, selection
from components.graph_style import action_family, type_color
from components.text import esc, md, shorten
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


def find_box(g: Any, kind: str) -> None:
    """A keyboard way to the same panel: pick a node by name."""
    box = f"g:find:{kind}"
    chosen = current(kind)
    nodes = graph.node_choices(g)
    ids = [str(n) for n in nodes]
    if chosen is not None and chosen.kind == "node" and chosen.id in ids:
        st.session_state[box] = chosen.id
    elif st.session_state.get(box) not in ids:
        st.session_state[box] = None
    st.selectbox("Find a node", [None, *ids], key=box, on_change=_find_changed, args=(kind, box),
                 format_func=lambda n: "(click the graph, or pick a name)" if n is None
                 else shorten(graph.node_label(g, n), 60), placeholder="type a name")


def records_html(conv: str, records: Sequence[Any]) -> str:
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


def panel(svc: MemoryServices, conv: str, g: Any, kind: str, episode_labels: dict[str, str], *,
          as_of_ids: frozenset[str] | None = None) -> None:
    """Draw the panel for the current selection (or a hint when nothing is selected).

    ``as_of_ids``: with a "Memory as of" date, the records as of then — only these are listed.
    """
    find_box(g, kind)
    sel = current(kind)
    if sel is None:
        st.caption("Click a node or an edge to see its records, episode and source turns.")
        return
    if sel.kind == "node":
        if sel.id not in {str(n) for n in g.nodes}:
            st.caption("The selected node is not in this view (filters changed).")
            return
        node = next(n for n in g.nodes if str(n) == sel.id)
        if kind == "event":
            _event(svc, conv, g, node, episode_labels)
        else:
            _entity(svc, conv, g, node, episode_labels, as_of_ids)
        return
    edge = parse_edge_id(g, sel.id)
    if edge is None:
        st.caption("The selected edge is not in this view (filters changed).")
        return
    _edge(svc, conv, g, edge, kind, episode_labels, as_of_ids)


def _then(records: Sequence[Any], as_of_ids: frozenset[str] | None) -> list[Any]:
    """The records as of the chosen day (all of them without a day)."""
    return list(records) if as_of_ids is None else [r for r in records if r.id in as_of_ids]


def _episodes_of(records: Sequence[Any], labels: dict[str, str]) -> list[tuple[str, str]]:
    ids = sorted(dict.fromkeys(r.episode_id for r in records), key=graph.episode_order)  # session order
    return [(e, labels.get(e, e)) for e in ids[:12]]


def _turns(svc: MemoryServices, conv: str, records: Sequence[Any], turn_ids: Sequence[str]) -> None:
    cited = [t for r in records[:MAX_EVIDENCE_RECORDS] for t in r.evidence_turn_ids]
    evidence = list(dict.fromkeys([*turn_ids, *cited]))
    if not evidence:
        st.caption("No source turns recorded.")
        return
    st.caption(f"Source turns ({len(evidence)}), highlighted")
    transcript.render(data.turns(svc, conv, evidence), records=records, evidence=evidence)


def _entity(svc: MemoryServices, conv: str, g: Any, node: Any, labels: dict[str, str],
            as_of_ids: frozenset[str] | None = None) -> None:
    attrs = graph.node_attrs(g, node)
    name = graph.node_label(g, node)
    _header(name, graph.node_type(g, node))
    names = [name, *map(str, attrs.get("aliases") or [])]
    if attrs.get("record_ids"):
        records = _then(data.records_by_ids(svc, attrs["record_ids"]), as_of_ids)
    else:  # records about it, and records naming it as their value ("moved to Paris")
        records = _then(svc.curation.records_naming(conv, names), as_of_ids)[:MAX_RECORDS]
    about = sum(1 for r in records if r.entity.strip().lower() in {n.strip().lower() for n in names})
    aliases = ", ".join(map(str, attrs.get("aliases") or ()))
    _show(facts_html(conv, [("aliases", aliases), ("importance", f"{graph.node_importance(g, node):.2f}"),
                              ("links in view", str(g.degree[node]))],
                       episodes=_episodes_of(records, labels)))
    if about:
        links.page_link_entity(conv, name, about)
    if records:
        _show(records_html(conv, records))
    _turns(svc, conv, records, attrs.get("source_turn_ids") or ())


def _event(svc: MemoryServices, conv: str, g: Any, node: Any, labels: dict[str, str]) -> None:
    a = graph.node_attrs(g, node)
    action = str(a.get("action") or graph.node_label(g, node))
    _header(action, action_family(action))
    when = " · ".join(str(x) for x in (a.get("time_text"), a.get("time")) if x)
    episode = a.get("episode_id")
    _show(facts_html(conv, [("when", when), ("where", str(a.get("place") or "")),
                              ("why", str(a.get("cause") or "")), ("how", str(a.get("manner") or ""))],
                       people=[str(p) for p in a.get("participants") or ()],
                       episodes=[(str(episode), labels.get(str(episode), str(episode)))] if episode else ()))
    _turns(svc, conv, [], a.get("source_turn_ids") or ())


def _edge(svc: MemoryServices, conv: str, g: Any, edge: tuple[Any, Any, Any], kind: str,
          labels: dict[str, str], as_of_ids: frozenset[str] | None = None) -> None:
    u, v, _ = edge
    attrs = graph.edge_attrs(g, edge)
    relation = graph.edge_label(attrs)
    st.markdown(f"#### {md(shorten(graph.node_label(g, u), 40))} —{md(relation)}→ "
                f"{md(shorten(graph.node_label(g, v), 40))}")
    records = _then(data.records_by_ids(svc, attrs.get("record_ids") or ()), as_of_ids)
    people = [graph.node_label(g, u), graph.node_label(g, v)] if kind == "entity" else []
    extra = ", ".join(map(str, attrs.get("labels") or ())) if kind == "event" else ""
    _show(facts_html(conv, [("relation", relation), ("details", extra),
                              ("first said", str(attrs.get("first_mentioned") or ""))],
                       people=people, episodes=_episodes_of(records, labels)))
    if records:
        _show(records_html(conv, records))
    turn_ids = [*(g.nodes[u].get("source_turn_ids") or ()), *(g.nodes[v].get("source_turn_ids") or ())] \
        if kind == "event" else []
    _turns(svc, conv, records, turn_ids)

