"""Episodes, records, entities, edges, event frames: what the build made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.errors import ConflictError, StoreError
from memory_core.models import (
    Entity,
    EntityMerge,
    Episode,
    EventFrame,
    EventLink,
    GraphEdge,
    Modality,
    Record,
    RecordStatus,
    ThemeType,
)
from memory_core.store.base import StoreBase, dumps, loads, now

_RECORD_COLS = (
    "id, conv_id, episode_id, entity, entity_type, property, value, condition, modality, "
    "valid_time, valid_time_text, evidence_turn_ids, confidence, source_speaker, importance, "
    "status, version, origin"
)
_INSERT_RECORD = "INSERT INTO records (" + _RECORD_COLS + ") VALUES (" + ", ".join("?" * 18) + ")"  # noqa: S608
_UPDATE_RECORD = (  # every column but id, then WHERE id = ? AND version = ?
    "UPDATE records SET " + ", ".join(f"{c.strip()} = ?" for c in _RECORD_COLS.split(",")[1:])  # noqa: S608
    + " WHERE id = ? AND version = ?"
)


def record_row(r: Record) -> list[Any]:
    return [r.id, r.conv_id, r.episode_id, r.entity, r.entity_type, r.property, r.value,
            r.condition, r.modality.value, r.valid_time, r.valid_time_text,
            dumps(list(r.evidence_turn_ids)), r.confidence, r.source_speaker, r.importance,
            r.status.value, r.version, r.origin]


def entity_row(e: Entity) -> list[Any]:
    return [e.id, e.conv_id, e.name, e.type, dumps(list(e.aliases)), e.importance, dumps(e.attributes)]


def merge_row(m: EntityMerge) -> list[Any]:
    return [m.conv_id, m.canonical_id, m.alias, m.reason, m.score]


def edge_row(g: GraphEdge) -> list[Any]:
    return [g.conv_id, g.source, g.target, g.property, dumps(list(g.record_ids)), g.importance,
            g.first_mentioned, g.last_mentioned, g.last_accessed]


def record_from_row(row: Sequence[Any]) -> Record:
    return Record(
        id=row[0], conv_id=row[1], episode_id=row[2], entity=row[3], entity_type=row[4],
        property=row[5], value=row[6], condition=row[7], modality=Modality(row[8]),
        valid_time=row[9], valid_time_text=row[10], evidence_turn_ids=tuple(loads(row[11])),
        confidence=row[12], source_speaker=row[13], importance=row[14],
        status=RecordStatus(row[15]), version=row[16], origin=row[17],
    )


class MemoryStore(StoreBase):
    # ------------------------------------------------------------------ session memory
    def save_session_memory(
        self,
        conv_id: str,
        session: int,
        episodes: Sequence[Episode],
        records: Sequence[Record],
        events: Sequence[EventFrame],
        *,
        backend: str,
        stats: dict[str, Any] | None = None,
    ) -> None:
        """Replace one session's episodes/records/events and mark it built — atomically."""
        with self.atomic():
            self.lock_conversation(conv_id)
            self.clear_session_memory(conv_id, session)
            self.insert_rows(
                "episodes",
                [
                    [e.conv_id, e.id, e.session, _episode_position(session, i), dumps(list(e.turn_ids)),
                     dumps(list(e.theme)), e.theme_type.value, e.boundary_reason, e.boundary_score,
                     e.start_time]
                    for i, e in enumerate(episodes)
                ],
            )
            self.insert_rows("records", [record_row(r) for r in records])
            self.insert_rows(
                "events",
                [
                    [v.id, v.conv_id, v.episode_id, v.action, dumps(list(v.participants)), v.time,
                     v.time_text, v.place, v.cause, v.manner, dumps(list(v.source_turn_ids)),
                     v.importance]
                    for v in events
                ],
            )
            self.execute(
                "INSERT INTO built_sessions VALUES (?, ?, ?, ?, ?)",
                [conv_id, session, backend, now(), dumps(stats or {})],
            )

    def clear_session_memory(self, conv_id: str, session: int) -> None:
        self.delete_session_memory(conv_id, session)

    def delete_session_memory(self, conv_id: str, session: int) -> dict[str, int]:
        """Delete one session's episodes, their records and events, and its built mark, in one
        transaction; returns the rows removed per table."""
        with self.atomic():
            episode_ids = self.session_episode_ids(conv_id, session)
            counts = {"records": 0, "events": 0}
            if episode_ids:
                for table in ("records", "events"):
                    counts[table] = self.execute_count(
                        f"DELETE FROM {table} WHERE conv_id = ? AND episode_id = ANY(?)",  # noqa: S608
                        [conv_id, episode_ids])
            for table in ("episodes", "built_sessions"):
                counts[table] = self.execute_count(
                    f"DELETE FROM {table} WHERE conv_id = ? AND session = ?", [conv_id, session])  # noqa: S608
            return counts

    def session_episode_ids(self, conv_id: str, session: int) -> list[str]:
        return [r[0] for r in self.all(
            "SELECT id FROM episodes WHERE conv_id = ? AND session = ?", [conv_id, session])]

    def memory_fingerprint(self, conv_id: str) -> tuple[Any, ...]:
        """Counts and versions that change whenever the conversation's memory does (query caches
        compare them to know when to rebuild)."""
        row = self.one(
            "SELECT (SELECT count(*) FROM turns WHERE conv_id = ?), "
            "(SELECT count(*) FROM episodes WHERE conv_id = ?), "
            "(SELECT count(*) FROM records WHERE conv_id = ?), "
            "(SELECT coalesce(sum(version), 0) FROM records WHERE conv_id = ?), "
            "(SELECT count(*) FROM records WHERE conv_id = ? AND status = 'active'), "
            "(SELECT count(*) FROM entities WHERE conv_id = ?), "
            "(SELECT count(*) FROM events WHERE conv_id = ?), "
            "(SELECT max(built_at) FROM built_sessions WHERE conv_id = ?)",
            [conv_id] * 8,
        )
        return tuple(row) if row else ()

    def built_sessions(self, conv_id: str) -> dict[int, str]:
        """Session index -> backend, for the sessions whose memory is complete."""
        return {r[0]: r[1] for r in self.all(
            "SELECT session, backend FROM built_sessions WHERE conv_id = ? ORDER BY session", [conv_id])}

    # ------------------------------------------------------------------ graphs
    def save_graph(
        self,
        conv_id: str,
        entities: Sequence[Entity],
        merges: Sequence[EntityMerge],
        edges: Sequence[GraphEdge],
        links: Sequence[EventLink],
        record_importance: dict[str, float] | None = None,
        event_importance: dict[str, float] | None = None,
        record_types: dict[str, str] | None = None,
    ) -> None:
        """Replace the conversation-wide graph (entities, merges, edges, event links); set the
        given records' importance and entity type (their entity's type across the conversation)."""
        with self.atomic():
            self.lock_conversation(conv_id)
            for table in ("entities", "entity_merges", "edges", "event_links"):
                self.execute(f"DELETE FROM {table} WHERE conv_id = ?", [conv_id])  # noqa: S608
            self.insert_rows("entities", [entity_row(e) for e in entities])
            self.insert_rows("entity_merges", [merge_row(m) for m in merges])
            self.insert_rows("edges", [edge_row(g) for g in edges])
            self.insert_rows(
                "event_links",
                [[k.conv_id, k.source, k.target, k.kind, k.label] for k in links],
            )
            if record_importance:
                self.executemany("UPDATE records SET importance = ? WHERE id = ?",
                                 [[v, k] for k, v in record_importance.items()])
            if event_importance:
                self.executemany("UPDATE events SET importance = ? WHERE id = ?",
                                 [[v, k] for k, v in event_importance.items()])
            if record_types:
                self.executemany("UPDATE records SET entity_type = ? WHERE id = ?",
                                 [[v, k] for k, v in record_types.items()])

    # ------------------------------------------------------------------ reads
    def episodes(self, conv_id: str, session: int | None = None) -> list[Episode]:
        sql = ("SELECT conv_id, id, session, turn_ids, theme, theme_type, boundary_reason, "
               "boundary_score, start_time FROM episodes WHERE conv_id = ?")
        params: list[Any] = [conv_id]
        if session is not None:
            sql += " AND session = ?"
            params.append(session)
        return [
            Episode(conv_id=r[0], id=r[1], session=r[2], turn_ids=tuple(loads(r[3])),
                    theme=tuple(loads(r[4])), theme_type=ThemeType(r[5]), boundary_reason=r[6],
                    boundary_score=r[7], start_time=r[8])
            for r in self.all(sql + " ORDER BY position", params)
        ]

    def records(self, conv_id: str, *, include_inactive: bool = False,
                episode_id: str | None = None) -> list[Record]:
        sql = f"SELECT {_RECORD_COLS} FROM records WHERE conv_id = ?"  # noqa: S608
        params: list[Any] = [conv_id]
        if not include_inactive:
            sql += " AND status = 'active'"
        if episode_id is not None:
            sql += " AND episode_id = ?"
            params.append(episode_id)
        return [record_from_row(r) for r in self.all(sql + " ORDER BY id", params)]

    def record(self, record_id: str) -> Record:
        row = self.one(f"SELECT {_RECORD_COLS} FROM records WHERE id = ?", [record_id])  # noqa: S608
        if row is None:
            raise StoreError(f"unknown record '{record_id}'")
        return record_from_row(row)

    def insert_record(self, record: Record) -> None:
        self.execute(_INSERT_RECORD, record_row(record))

    def update_record(self, record: Record, *, expected_version: int) -> Record:
        """Save ``record`` if the stored version is still ``expected_version``.

        Returns the saved record (version + 1). Raises ``ConflictError`` naming the other
        change when someone saved first.
        """
        saved = record.model_copy(update={"version": expected_version + 1})
        with self.atomic():
            # one conditional UPDATE: on PostgreSQL a concurrent editor's row lock makes this
            # wait, then re-check the version, so exactly one of two racing saves wins
            params = [*record_row(saved)[1:], record.id, expected_version]
            changed = self.execute_count(_UPDATE_RECORD, params)
            if changed == 0:
                current = self.record(record.id)  # unknown id -> StoreError
                raise ConflictError(
                    f"record '{record.id}' was changed by someone else (now version "
                    f"{current.version}, you edited version {expected_version}): "
                    f"{current.entity} / {current.property} = {current.value!r} "
                    f"[{current.status.value}]; reload and apply your change again"
                )
            return saved

    def entities(self, conv_id: str) -> list[Entity]:
        return [
            Entity(id=r[0], conv_id=r[1], name=r[2], type=r[3], aliases=tuple(loads(r[4])),
                   importance=r[5], attributes=loads(r[6]) or {})
            for r in self.all("SELECT id, conv_id, name, type, aliases, importance, attributes "
                              "FROM entities WHERE conv_id = ? ORDER BY importance DESC, name", [conv_id])
        ]

    def entity_merges(self, conv_id: str) -> list[EntityMerge]:
        return [EntityMerge(conv_id=r[0], canonical_id=r[1], alias=r[2], reason=r[3], score=r[4])
                for r in self.all("SELECT * FROM entity_merges WHERE conv_id = ?", [conv_id])]

    def edges(self, conv_id: str) -> list[GraphEdge]:
        return [
            GraphEdge(conv_id=r[0], source=r[1], target=r[2], property=r[3],
                      record_ids=tuple(loads(r[4])), importance=r[5], first_mentioned=r[6],
                      last_mentioned=r[7], last_accessed=r[8])
            for r in self.all("SELECT * FROM edges WHERE conv_id = ?", [conv_id])
        ]

    def touch_edges(self, conv_id: str, record_ids: Sequence[str]) -> None:
        """Set ``last_accessed`` on edges carrying any of ``record_ids`` (G-Long recency)."""
        if not record_ids:
            return
        self.execute(self.dialect("touch_edges"), [now(), conv_id, list(record_ids)])

    def events(self, conv_id: str) -> list[EventFrame]:
        return [
            EventFrame(id=r[0], conv_id=r[1], episode_id=r[2], action=r[3],
                       participants=tuple(loads(r[4])), time=r[5], time_text=r[6], place=r[7],
                       cause=r[8], manner=r[9], source_turn_ids=tuple(loads(r[10])), importance=r[11])
            for r in self.all("SELECT * FROM events WHERE conv_id = ? ORDER BY id", [conv_id])
        ]

    def event_links(self, conv_id: str) -> list[EventLink]:
        return [EventLink(conv_id=r[0], source=r[1], target=r[2], kind=r[3], label=r[4])
                for r in self.all("SELECT * FROM event_links WHERE conv_id = ?", [conv_id])]


def _episode_position(session: int, i: int) -> int:
    return session * 100_000 + i
