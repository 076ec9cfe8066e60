"""The memory as it stood on a day: the one rule, and the graphs cut by it.

**The rule** (``said_by``): a record — or an event — counts on ``day`` when it was said in a
session that started by that day and its valid time is not after it. Valid times are ISO text
compared as text (``"2023-05"`` counts on 6 May 2023, ``"2023-06"`` does not); no session time
or no valid time does not hide it. ``AS_OF_SQL`` is the same rule for the records filter
(``store/curation.py``, parameters ``as_of_params(day)``); ``tests/curation/test_as_of_rule.py``
checks the two against each other on a real store.

**The graphs** (pure: a graph view — ``memory_core.graph_view`` — and records in, a new view
out; the Graphs page cuts the view the services hand it, ``export --as-of`` keeps of the
networkx graph what the cut of its view kept):

* entity graph — an edge stays when at least one of its records counts (its record list and
  "last mentioned" shrink to those); a node stays when a record counting then names it (as its
  entity or its value, by name or alias, as the side panel finds them) or it ends a kept edge. A
  node that no record names and no edge dates is kept (nothing says it is later).
* event graph — an event stays when its episode's session started up to the day and its time is
  not after it (the same rule); a link stays when both its events stay.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Protocol

from memory_core.errors import StoreError
from memory_core.graph_view import GraphNode, GraphView, ViewEdge

# the rule in SQL over ``episodes e`` and ``records r``; parameters: as_of_params(day)
AS_OF_SQL = ("(e.start_time IS NULL OR CAST(e.start_time AS DATE) <= CAST(? AS DATE)) "
             "AND (r.valid_time IS NULL OR r.valid_time = '' OR r.valid_time <= ?)")


def as_of_params(day: date | str) -> list[str]:
    """The parameters of ``AS_OF_SQL`` for ``day``."""
    text = parse_day(day).isoformat()
    return [text, text]


def parse_day(value: Any, *, what: str = "records filter 'as_of'") -> date:
    """A day from a date, a datetime or ``YYYY-MM-DD`` text; anything else is a one-line
    ``StoreError`` naming ``what``."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value)[:10]
    try:
        if len(text) == 10 and text[4] == "-" and text[7] == "-":
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise StoreError(f"{what}: expected a date (YYYY-MM-DD), got {value!r}")


def _day_of(value: date | None) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return None


def said_by(day: date, start: date | None, valid_time: str | None) -> bool:
    """The rule: a session started by ``day`` (``start``: its start time, or None) and a valid
    time not after it (ISO text compared as text; empty or None: no time said)."""
    started = _day_of(start)
    if started is not None and started > day:
        return False
    return not valid_time or str(valid_time) <= day.isoformat()


class _Named(Protocol):
    """What the cut reads of a record (``memory_core.models.Record`` has these)."""

    @property
    def id(self) -> str: ...
    @property
    def entity(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def episode_id(self) -> str: ...


@dataclass(frozen=True)
class AsOf:
    graph: GraphView  # a new view: what stood on ``day``
    day: date
    hidden_nodes: int
    hidden_edges: int
    total_nodes: int
    total_edges: int
    record_ids: frozenset[str]  # the records as of ``day`` (the side panel lists only these)

    def caption(self) -> str:
        head = f"Memory as of {self.day.isoformat()}: "
        if not self.hidden_nodes and not self.hidden_edges:
            return head + "nothing in this graph is later, nothing is hidden."
        return (head + f"{self.hidden_nodes} of {self.total_nodes} nodes and {self.hidden_edges} of "
                f"{self.total_edges} edges hidden (said in a later session or about a later time).")


def _key(name: str) -> str:
    return " ".join(name.lower().split())


def node_names(node: GraphNode) -> set[str]:
    """The names a node goes by (its name and aliases), as the records are matched."""
    return {_key(node.label), *(_key(x) for x in node.aliases)} - {""}


def _named(records: Iterable[_Named]) -> set[str]:
    return {_key(x) for r in records for x in (r.entity, r.value)} - {""}


def _cut(g: GraphView, day: date, nodes: set[str], kept: Sequence[ViewEdge],
         record_ids: frozenset[str]) -> AsOf:
    sub = GraphView(g.kind, tuple(n for n in g.nodes if n.id in nodes),
                    tuple(e for e in kept if e.source in nodes and e.target in nodes))
    return AsOf(sub, day, len(g.nodes) - len(sub.nodes), len(g.edges) - len(sub.edges), len(g.nodes),
                len(g.edges), record_ids)


def entity_graph_as_of(g: GraphView, day: date, *, records_then: Sequence[_Named],
                       records_all: Sequence[_Named],
                       episode_start: Mapping[str, date | None] | None = None) -> AsOf:
    """The entity graph as of ``day``; ``records_then`` are the records as of that day (the
    store's ``as_of`` filter), ``records_all`` every record (to tell "named only later" from
    "named by no record"); ``episode_start`` (episode id -> start time) re-dates the kept
    edges' "last mentioned"."""
    then_ids = frozenset(r.id for r in records_then)
    record_of = {r.id: r for r in records_then}
    named_then, named_ever = _named(records_then), _named(records_all)
    starts = episode_start or {}

    kept: list[ViewEdge] = []
    dated: set[str] = set()  # nodes some edge with records dates
    for e in g.edges:
        if not e.record_ids:
            kept.append(e)  # undated: stays when both ends stay
            continue
        dated |= {e.source, e.target}
        now = tuple(i for i in e.record_ids if i in then_ids)
        if not now:
            continue
        times = [t for t in (_day_of(starts.get(record_of[i].episode_id)) for i in now) if t is not None]
        if times:
            kept.append(replace(e, record_ids=now, first_mentioned=min(times).isoformat(),
                                last_mentioned=max(times).isoformat()))
        else:
            kept.append(replace(e, record_ids=now))

    ends = {x for e in kept if e.record_ids for x in (e.source, e.target)}
    nodes = set()
    for n in g.nodes:
        names = node_names(n)
        if n.id in ends or names & named_then or not (names & named_ever or n.id in dated):
            nodes.add(n.id)
    return _cut(g, day, nodes, kept, then_ids)


def event_graph_as_of(g: GraphView, day: date, *, episode_start: Mapping[str, date | None],
                      records_then: Sequence[_Named] = ()) -> AsOf:
    """The event graph as of ``day``: events whose session started by then and whose time is
    not after it, and the links between them."""
    nodes = {n.id for n in g.nodes if said_by(day, episode_start.get(n.episode_id), n.time)}
    return _cut(g, day, nodes, g.edges, frozenset(r.id for r in records_then))


def graph_as_of(g: GraphView, kind: str, day: date, *, records_then: Sequence[_Named],
                records_all: Sequence[_Named], episode_start: Mapping[str, date | None]) -> AsOf:
    if kind == "event":
        return event_graph_as_of(g, day, episode_start=episode_start, records_then=records_then)
    return entity_graph_as_of(g, day, records_then=records_then, records_all=records_all,
                              episode_start=episode_start)
