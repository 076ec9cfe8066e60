"""Curation queries: record search for the Records page (filtered, searched, sorted and
paginated in DuckDB), filter facets, and the lookups entity merges need.

A search is one parameterised statement over ``records`` joined to its episode (for session
and dialogue order). Sort keys come from a whitelist that maps a public name to a fixed SQL
expression, so no user text ever becomes SQL.

    store.search_records(conv_id, query="melanie paint", filters=RecordFilter(session=(3,)),
                         sort="-confidence", page=2, page_size=50) -> (records, total)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.as_of import AS_OF_SQL, as_of_params
from memory_core.errors import StoreError
from memory_core.models import Edit, Entity, EntityMerge, GraphEdge, Record
from memory_core.record_filter import ALL_STATUSES, RecordFacets, RecordFilter
from memory_core.store.activity import EDIT_COLUMNS, edit_from_row
from memory_core.store.base import StoreBase, loads
from memory_core.store.memory import edge_row, entity_row, merge_row, record_from_row

RECORD_COLUMNS = (
    "id", "conv_id", "episode_id", "entity", "entity_type", "property", "value", "condition",
    "modality", "valid_time", "valid_time_text", "evidence_turn_ids", "confidence",
    "source_speaker", "importance", "status", "version", "origin",
)  # the order ``record_from_row`` reads
_SELECT = ", ".join(f"r.{c}" for c in RECORD_COLUMNS)

# public sort name -> SQL expression (a fixed whitelist; never user text)
SORT_FIELDS: dict[str, str] = {
    "episode": "e.position",
    "session": "e.session",
    "episode_id": "r.episode_id",
    "entity": "lower(r.entity)",
    "entity_type": "lower(r.entity_type)",
    "property": "lower(r.property)",
    "value": "lower(r.value)",
    "modality": "r.modality",
    "valid_time": "r.valid_time",
    "confidence": "r.confidence",
    "importance": "r.importance",
    "status": "r.status",
    "version": "r.version",
    "origin": "r.origin",
    "id": "r.id",
}
DEFAULT_SORT = "episode"

MAX_PAGE_SIZE = 1000
MAX_QUERY_WORDS = 8

# text searched by ``query``: every word must occur (case-insensitive) somewhere in it. Only
# what a reader sees as text — entity, type, property, value, condition, time and the words of
# the evidence turns — never ids (record ids contain the conversation id, so "maya" in
# "demo-maya-jonas" matched every record) and not the source speaker (a name that would match
# everything that person said).
_HAYSTACK = (
    "lower(concat_ws(' ', r.entity, r.entity_type, r.property, r.value, r.condition, "
    "r.valid_time, r.valid_time_text, ev.text))"
)
# the evidence turns' text (and image captions) per record, joined only when words are searched;
# "is t.id in the record's JSON list of evidence ids" is dialect SQL (engines.DIALECT_SQL)
_EVIDENCE_TEXT = (
    "LEFT JOIN (SELECT r2.id AS record_id, string_agg(concat_ws(' ', t.text, t.image_caption), ' ') AS text "
    "FROM records r2 JOIN turns t ON t.conv_id = r2.conv_id "
    "AND {evidence_has_turn} "
    "WHERE r2.conv_id = ? GROUP BY r2.id) ev ON ev.record_id = r.id"
)


class CurationStore(StoreBase):
    def search_records(
        self,
        conv_id: str,
        *,
        query: str = "",
        filters: RecordFilter | None = None,
        sort: str = DEFAULT_SORT,
        page: int = 1,
        page_size: int = 50,
    ) -> tuple[list[Record], int]:
        """One page (1-based) of the records matching ``query`` and ``filters``, and the total.

        ``filters``: a ``RecordFilter`` (``memory_core.record_filter``; ``RecordFilter.of`` reads
        loose input) — entity (exact, case-insensitive), entity_type, property, modality, status
        (default: every status but deleted; ``"all"``), min_confidence, session, episode_id,
        origin, as_of (only records said in a session up to that day and whose valid time is not
        after it — the memory as of then). ``sort`` is a name from ``SORT_FIELDS``, ``-`` for
        descending.
        """
        if page < 1:
            raise StoreError(f"records page: page must be 1 or more, got {page}")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise StoreError(f"records page: page_size must be 1..{MAX_PAGE_SIZE}, got {page_size}")
        where, params = _where(conv_id, query, filters or RecordFilter())
        order = _order_by(sort)
        evidence = ""
        if _words(query):
            joined = _EVIDENCE_TEXT.format(evidence_has_turn=self.dialect("evidence_has_turn"))
            evidence, params = f" {joined}", [conv_id, *params]
        base = f"FROM records r LEFT JOIN episodes e ON e.id = r.episode_id{evidence} WHERE {where}"
        total = int(self.scalar(f"SELECT count(*) {base}", params))  # sql: constants (whitelisted)
        rows = self.all(
            f"SELECT {_SELECT} {base} ORDER BY {order} LIMIT ? OFFSET ?",  # sql: constants (whitelisted)
            [*params, page_size, (page - 1) * page_size],
        )
        return [record_from_row(r) for r in rows], total

    def record_facets(self, conv_id: str, *, top_entities: int = 200,
                      as_of: str | None = None) -> RecordFacets:
        """Distinct values with counts for the filter widgets (non-deleted records); with
        ``as_of`` (a day) only the records of the memory as it stood then, like ``search_records``."""
        where, params = _where(conv_id, "", RecordFilter.of({"as_of": as_of}))
        facets: RecordFacets = {}
        for name, expr, order in (
            ("entity_type", "r.entity_type", "n DESC, v"),
            ("property", "r.property", "n DESC, v"),
            ("modality", "r.modality", "n DESC, v"),
            ("status", "r.status", "n DESC, v"),
            ("origin", "r.origin", "n DESC, v"),
            ("session", "e.session", "v"),
            ("entity", "r.entity", "n DESC, v"),
        ):
            limit = top_entities if name == "entity" else 10_000
            rows = self.all(
                f"SELECT {expr} AS v, count(*) AS n FROM records r "  # noqa: S608
                "LEFT JOIN episodes e ON e.id = r.episode_id "
                f"WHERE {where} GROUP BY v ORDER BY {order} LIMIT ?",
                [*params, limit],
            )
            facets[name] = [(v, int(n)) for v, n in rows]
        return facets

    def records_naming(self, conv_id: str, names: Sequence[str], *, as_value: bool = True,
                       active_only: bool = False) -> list[Record]:
        """Records whose entity (or, with ``as_value``, whose value) is one of ``names``
        (case-insensitive); deleted records are never returned."""
        lowered = sorted({n.strip().lower() for n in names if n.strip()})
        if not lowered:
            return []
        value_clause = " OR lower(trim(r.value)) = ANY(?)" if as_value else ""
        status = "r.status = 'active'" if active_only else "r.status <> 'deleted'"
        params: list[Any] = [conv_id, lowered] + ([lowered] if as_value else [])
        rows = self.all(
            f"SELECT {_SELECT} FROM records r WHERE r.conv_id = ? AND {status} "  # noqa: S608
            f"AND (lower(trim(r.entity)) = ANY(?){value_clause}) ORDER BY r.id",
            params,
        )
        return [record_from_row(r) for r in rows]

    def patch_graph(self, conv_id: str, *, delete_entity_ids: Sequence[str], entities: Sequence[Entity],
                    delete_edge_sources: Sequence[str], edges: Sequence[GraphEdge],
                    merges_reason: str, merges: Sequence[EntityMerge]) -> None:
        """Replace part of the entity graph: the given entity rows, the outgoing edges of the
        given sources, and every entity merge with reason ``merges_reason``."""
        with self.atomic():
            self.lock_conversation(conv_id)
            gone = sorted(set(delete_entity_ids) | {e.id for e in entities})
            if gone:
                self.execute("DELETE FROM entities WHERE conv_id = ? AND id = ANY(?)",
                             [conv_id, gone])
                self.execute("DELETE FROM entity_merges WHERE conv_id = ? AND canonical_id = ANY(?) "
                             "AND NOT canonical_id = ANY(?)",
                             [conv_id, sorted(delete_entity_ids), [e.id for e in entities]])
            sources = sorted(set(delete_edge_sources))
            if sources:
                self.execute("DELETE FROM edges WHERE conv_id = ? AND source = ANY(?)",
                             [conv_id, sources])
            if gone:  # edges into removed entities (their sources were re-derived too)
                removed = sorted(set(delete_entity_ids) - {e.id for e in entities})
                if removed:
                    self.execute("DELETE FROM edges WHERE conv_id = ? AND target = ANY(?)",
                                 [conv_id, removed])
            self.execute("DELETE FROM entity_merges WHERE conv_id = ? AND reason = ?",
                         [conv_id, merges_reason])
            self.insert_rows("entities", [entity_row(e) for e in entities])
            self.insert_rows("edges", [edge_row(g) for g in edges])
            self.insert_rows("entity_merges", [merge_row(m) for m in merges])

    def conversation_speakers(self, conv_id: str) -> list[str]:
        raw = self.scalar("SELECT speakers FROM conversations WHERE id = ?", [conv_id])
        return [] if raw is None else [str(s) for s in loads(raw)]

    def episode_times(self, conv_id: str) -> dict[str, Any]:
        rows = self.all("SELECT id, start_time FROM episodes WHERE conv_id = ?", [conv_id])
        return {r[0]: r[1] for r in rows}

    def edit(self, edit_id: str) -> Edit:
        r = self.one(f"SELECT {EDIT_COLUMNS} FROM edits WHERE id = ?", [edit_id])  # noqa: S608 (a constant)
        if r is None:
            raise StoreError(f"unknown edit '{edit_id}'")
        return edit_from_row(r)

    def entity_names(self, conv_id: str) -> dict[str, int]:
        """Entity name -> number of non-deleted records naming it as their entity."""
        return {r[0]: int(r[1]) for r in self.all(
            "SELECT entity, count(*) FROM records WHERE conv_id = ? AND status <> 'deleted' "
            "GROUP BY entity ORDER BY entity", [conv_id])}


# ---------------------------------------------------------------------------- helpers
def _where(conv_id: str, query: str, filters: RecordFilter) -> tuple[str, list[Any]]:
    clauses = ["r.conv_id = ?"]
    params: list[Any] = [conv_id]

    if filters.status == ALL_STATUSES:
        pass
    elif filters.status:
        clauses.append("r.status = ANY(?)")
        params.append([str(s) for s in filters.status])
    else:
        clauses.append("r.status <> 'deleted'")

    for values, column, lower in (
        (filters.entity, "r.entity", True),
        (filters.entity_type, "r.entity_type", True),
        (filters.property, "r.property", True),
        (tuple(str(m) for m in filters.modality), "r.modality", False),
        (filters.episode_id, "r.episode_id", False),
        (filters.origin, "r.origin", False),
    ):
        if not values:
            continue
        if lower:
            clauses.append(f"lower({column}) = ANY(?)")
            params.append([v.lower() for v in values])
        else:
            clauses.append(f"{column} = ANY(?)")
            params.append(list(values))

    if filters.session:
        clauses.append("e.session = ANY(?)")
        params.append(list(filters.session))

    if filters.min_confidence is not None:
        clauses.append("r.confidence >= ?")
        params.append(filters.min_confidence)

    if filters.as_of is not None:
        # the memory as it stood on that day (memory_core.as_of: the one rule, also the graphs')
        clauses.append(AS_OF_SQL)
        params += as_of_params(filters.as_of)

    for word in _words(query):
        clauses.append(f"strpos({_HAYSTACK}, ?) > 0")
        params.append(word)
    return " AND ".join(clauses), params


def _words(query: str) -> list[str]:
    return [w for w in (query or "").lower().split() if w][:MAX_QUERY_WORDS]


def _order_by(sort: str) -> str:
    name = (sort or DEFAULT_SORT).strip()
    descending = name.startswith("-")
    name = name.lstrip("-+")
    if name not in SORT_FIELDS:
        raise StoreError(f"records sort: unknown field '{name}' (known: {', '.join(SORT_FIELDS)})")
    direction = "DESC" if descending else "ASC"
    tie = "e.position ASC, r.id ASC" if name != "episode" else "r.id ASC"
    return f"{SORT_FIELDS[name]} {direction} NULLS LAST, {tie}"
