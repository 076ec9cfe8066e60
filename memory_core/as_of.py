"""The memory as it stood on a day: the one rule, and the graphs cut by it.

**The rule** (``said_by``): a record — or an event — counts on ``day`` when it was said in a
session that started by that day and its valid time is not after it. Valid times are ISO text
compared as text (``"2023-05"`` counts on 6 May 2023, ``"2023-06"`` does not); no session time
or no valid time does not hide it. ``AS_OF_SQL`` is the same rule for the records filter
(``store/curation.py``, parameters ``as_of_params(day)``); ``tests/curation/test_as_of_rule.py``
checks the two against each other on a real store.

**The graphs** (pure: a networkx graph and records in, a new graph out; the Graphs page and
``export --as-of`` use them):

* entity graph — an edge stays when at least one of its records counts (its record list and
  "last mentioned" shrink to those); a node stays when a record counting then names it (as its
  entity or its value, by name or alias, as the side panel finds them) or it ends a kept edge. A
  node that no record names and no edge dates is kept (nothing says it is later).
* event graph — an event stays when its episode's session started up to the day and its time is
  not after it (the same rule); a link stays when both its events stay.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

from memory_core.errors import StoreError

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


def _day_of(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return None


def said_by(day: date, start: Any, valid_time: Any) -> bool:
    """The rule: a session started by ``day`` (``start``: its start time, or None) and a valid
    time not after it (ISO text compared as text; empty or None: no time said)."""
    started = _day_of(start)
    if started is not None and started > day:
        return False
    return not valid_time or str(valid_time) <= day.isoformat()


def _edges(g: Any) -> Iterator[tuple[Any, Any, Any, dict[str, Any]]]:
    """(source, target, key, attrs) for both multigraphs and simple graphs."""
    if g.is_multigraph():
        yield from g.edges(keys=True, data=True)
    else:
        for u, v, a in g.edges(data=True):
            yield u, v, None, a


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
    graph: Any  # a new graph: what stood on ``day`` (the input graph is not changed)
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


def _key(name: Any) -> str:
    return " ".join(str(name or "").lower().split())


def node_names(g: Any, n: Any) -> set[str]:
    """The names a node goes by (its name, label and aliases), as the records are matched."""
    a = g.nodes[n]
    names = {_key(a.get("name")), _key(a.get("label")), *(_key(x) for x in a.get("aliases") or ())}
    return names - {""}


def _named(records: Iterable[_Named]) -> set[str]:
    return {_key(x) for r in records for x in (r.entity, r.value)} - {""}


def _copy(g: Any, nodes: set[Any], kept_edges: Sequence[tuple[Any, Any, Any, dict[str, Any]]]) -> Any:
    sub = g.__class__()
    sub.graph.update(g.graph)
    sub.add_nodes_from((n, g.nodes[n]) for n in g.nodes if n in nodes)
    for u, v, k, a in kept_edges:
        if g.is_multigraph():
            sub.add_edge(u, v, key=k, **a)
        else:
            sub.add_edge(u, v, **a)
    return sub


def entity_graph_as_of(g: Any, day: date, *, records_then: Sequence[_Named],
                       records_all: Sequence[_Named],
                       episode_start: Mapping[str, Any] | None = None) -> AsOf:
    """The entity graph as of ``day``; ``records_then`` are the records as of that day (the
    store's ``as_of`` filter), ``records_all`` every record (to tell "named only later" from
    "named by no record"); ``episode_start`` (episode id -> start time) re-dates the kept
    edges' "last mentioned"."""
    then_ids = frozenset(r.id for r in records_then)
    record_of = {r.id: r for r in records_then}
    named_then, named_ever = _named(records_then), _named(records_all)
    starts = episode_start or {}

    kept: list[tuple[Any, Any, Any, dict[str, Any]]] = []
    dated: set[Any] = set()  # nodes some edge with records dates
    edges = list(_edges(g))
    for u, v, k, a in edges:
        ids = [str(x) for x in a.get("record_ids") or ()]
        if not ids:
            kept.append((u, v, k, a))  # undated: stays when both ends stay
            continue
        dated |= {u, v}
        now = [i for i in ids if i in then_ids]
        if not now:
            continue
        attrs = dict(a, record_ids=now)
        times = [t for t in (_day_of(starts.get(record_of[i].episode_id)) for i in now) if t is not None]
        if times:
            attrs["first_mentioned"] = min(times).isoformat()
            attrs["last_mentioned"] = max(times).isoformat()
        kept.append((u, v, k, attrs))

    ends = {x for u, v, _, a in kept if a.get("record_ids") for x in (u, v)}
    nodes = set()
    for n in g.nodes:
        names = node_names(g, n)
        if n in ends or names & named_then or not (names & named_ever or n in dated):
            nodes.add(n)
    kept = [(u, v, k, a) for u, v, k, a in kept if u in nodes and v in nodes]
    sub = _copy(g, nodes, kept)
    return AsOf(sub, day, g.number_of_nodes() - sub.number_of_nodes(),
                g.number_of_edges() - sub.number_of_edges(), g.number_of_nodes(), g.number_of_edges(),
                then_ids)


def event_graph_as_of(g: Any, day: date, *, episode_start: Mapping[str, Any],
                      records_then: Sequence[_Named] = ()) -> AsOf:
    """The event graph as of ``day``: events whose session started by then and whose time is
    not after it, and the links between them."""
    def stood(a: dict[str, Any]) -> bool:
        return said_by(day, episode_start.get(str(a.get("episode_id") or "")), a.get("time"))

    nodes = {n for n in g.nodes if stood(g.nodes[n])}
    kept = [(u, v, k, a) for u, v, k, a in _edges(g) if u in nodes and v in nodes]
    sub = _copy(g, nodes, kept)
    return AsOf(sub, day, g.number_of_nodes() - sub.number_of_nodes(),
                g.number_of_edges() - sub.number_of_edges(), g.number_of_nodes(), g.number_of_edges(),
                frozenset(r.id for r in records_then))


def graph_as_of(g: Any, kind: str, day: date, *, records_then: Sequence[_Named],
                records_all: Sequence[_Named], episode_start: Mapping[str, Any]) -> AsOf:
    if kind == "event":
        return event_graph_as_of(g, day, episode_start=episode_start, records_then=records_then)
    return entity_graph_as_of(g, day, records_then=records_then, records_all=records_all,
                              episode_start=episode_start)
