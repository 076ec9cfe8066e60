"""Conversations, sessions, turns and QA items: what was imported."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_core.errors import StoreError
from memory_core.models import Conversation, QAItem, Session, Turn
from memory_core.store.base import StoreBase, dumps, loads, now

CONVERSATION_TABLES = ("turns", "sessions", "qa", "conversations")
MEMORY_TABLES = (
    "episodes",
    "records",
    "entities",
    "entity_merges",
    "edges",
    "events",
    "event_links",
    "built_sessions",
)
# what replacing a conversation on import removes by conv_id (then its ``conversations`` row);
# forgetting removes these and the LLM accounting and cache rows too (``forget.py``)
REPLACE_TABLES = (*MEMORY_TABLES, *CONVERSATION_TABLES[:-1], "traces", "edits", "builds", "build_status")


class ConversationStore(StoreBase):
    def has_conversation(self, conv_id: str) -> bool:
        return self.scalar("SELECT count(*) FROM conversations WHERE id = ?", [conv_id]) > 0

    def save_conversation(self, conv: Conversation, *, replace: bool = False) -> None:
        """Store a whole conversation in one transaction.

        With ``replace`` an existing conversation of the same id is removed first (its memory,
        traces and edits too), atomically; without it an existing id is an error.
        """
        with self.atomic():
            if self.has_conversation(conv.id):
                if not replace:
                    raise StoreError(
                        f"conversation '{conv.id}' already exists; use --replace to replace it"
                    )
                self.delete_conversation(conv.id)
            self.execute(
                "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?)",
                [conv.id, dumps(list(conv.speakers)), conv.source_format, conv.source_name,
                 dumps(conv.meta), now()],
            )
            self.add_sessions(conv.id, conv.sessions)
            self.insert_rows(
                "qa",
                [
                    [conv.id, q.qid, q.question, q.answer, dumps(list(q.evidence)), q.category,
                     q.adversarial_answer, q.question_time]
                    for q in conv.qa
                ],
            )

    def add_sessions(self, conv_id: str, sessions: tuple[Session, ...] | list[Session]) -> None:
        """Append sessions (e.g. a new session of an already imported conversation)."""
        with self.atomic():
            position = int(self.scalar(
                "SELECT coalesce(max(position) + 1, 0) FROM turns WHERE conv_id = ?", [conv_id]))
            self.insert_rows("sessions", [[conv_id, s.index, s.time, s.time_text] for s in sessions])
            rows: list[list[Any]] = []
            for s in sessions:
                for t in s.turns:
                    rows.append([conv_id, t.id, t.session, t.index, position, t.speaker, t.text,
                                 t.image_caption, t.image_url, t.session_time])
                    position += 1
            self.insert_rows("turns", rows)

    def grow_conversation(self, conv_id: str, *, extend: Session | None = None,
                          sessions: Sequence[Session] = (), speakers: Sequence[str] = (),
                          qa: Sequence[QAItem] = ()) -> None:
        """Grow an imported conversation in one transaction: ``extend`` holds turns to append
        to an existing session (its built mark is dropped, so the next build redoes that
        session only — its memory stays until then), ``sessions`` are new sessions after the
        last, ``speakers`` the new speaker list, ``qa`` new questions."""
        with self.atomic():
            self.lock_conversation(conv_id)
            if extend is not None and extend.turns:
                position = int(self.scalar(
                    "SELECT coalesce(max(position) + 1, 0) FROM turns WHERE conv_id = ?", [conv_id]))
                self.insert_rows("turns", [
                    [conv_id, t.id, t.session, t.index, position + i, t.speaker, t.text, t.image_caption,
                     t.image_url, t.session_time] for i, t in enumerate(extend.turns)])
                self.execute("DELETE FROM built_sessions WHERE conv_id = ? AND session = ?",
                             [conv_id, extend.index])
            if sessions:
                self.add_sessions(conv_id, list(sessions))
            if speakers:
                self.execute("UPDATE conversations SET speakers = ? WHERE id = ?",
                             [dumps(list(speakers)), conv_id])
            self.insert_rows("qa", [
                [conv_id, q.qid, q.question, q.answer, dumps(list(q.evidence)), q.category,
                 q.adversarial_answer, q.question_time] for q in qa])

    def delete_conversation(self, conv_id: str) -> None:
        self.delete_conversation_rows(conv_id, REPLACE_TABLES)

    def delete_conversation_rows(self, conv_id: str, tables: Sequence[str]) -> dict[str, int]:
        """Delete ``conv_id``'s rows from ``tables`` (schema constants) and its ``conversations``
        row in one transaction; returns the rows removed per table."""
        with self.atomic():
            counts = {table: self.execute_count(f"DELETE FROM {table} WHERE conv_id = ?", [conv_id])  # noqa: S608
                      for table in tables}
            counts["conversations"] = self.execute_count("DELETE FROM conversations WHERE id = ?", [conv_id])
        return counts

    def conversation_ids(self) -> list[str]:
        return [r[0] for r in self.all("SELECT id FROM conversations ORDER BY id")]

    def require_conversation(self, conv_id: str) -> None:
        if not self.has_conversation(conv_id):
            known = ", ".join(self.conversation_ids()) or "none imported"
            raise StoreError(f"unknown conversation '{conv_id}' (known: {known})")

    def load_conversation(self, conv_id: str, *, with_qa: bool = True) -> Conversation:
        self.require_conversation(conv_id)
        row = self.one(
            "SELECT speakers, source_format, source_name, meta FROM conversations WHERE id = ?",
            [conv_id],
        )
        assert row is not None
        turns = self.turns(conv_id)
        by_session: dict[int, list[Turn]] = {}
        for t in turns:
            by_session.setdefault(t.session, []).append(t)
        sessions = tuple(
            Session(index=idx, time=time, time_text=text, turns=tuple(by_session.get(idx, [])))
            for idx, time, text in self.all(
                "SELECT idx, time, time_text FROM sessions WHERE conv_id = ? ORDER BY idx", [conv_id]
            )
        )
        return Conversation(
            id=conv_id,
            speakers=tuple(loads(row[0])),
            sessions=sessions,
            qa=tuple(self.qa_items(conv_id)) if with_qa else (),
            source_format=row[1],
            source_name=row[2],
            meta=loads(row[3]) or {},
        )

    def turns(self, conv_id: str, ids: list[str] | None = None) -> list[Turn]:
        sql = ("SELECT id, session, idx, speaker, text, image_caption, image_url, session_time "
               "FROM turns WHERE conv_id = ?")
        params: list[Any] = [conv_id]
        if ids is not None:
            if not ids:
                return []
            sql += " AND id = ANY(?)"
            params.append(list(ids))
        sql += " ORDER BY position"
        return [
            Turn(id=r[0], session=r[1], index=r[2], speaker=r[3], text=r[4], image_caption=r[5],
                 image_url=r[6], session_time=r[7])
            for r in self.all(sql, params)
        ]

    def sessions(self, conv_id: str) -> list[Session]:
        return list(self.load_conversation(conv_id, with_qa=False).sessions)

    def qa_items(self, conv_id: str) -> list[QAItem]:
        return [
            QAItem(qid=r[0], question=r[1], answer=r[2], evidence=tuple(loads(r[3])), category=r[4],
                   adversarial_answer=r[5], question_time=r[6])
            for r in self.all(
                "SELECT qid, question, answer, evidence, category, adversarial_answer, question_time "
                "FROM qa WHERE conv_id = ? ORDER BY qid",
                [conv_id],
            )
        ]

    def conversation_summaries(self) -> list[dict[str, Any]]:
        """One row per conversation with its counts (for lists and the home page)."""
        return self.dicts(
            """
            SELECT c.id, c.source_format, c.source_name, c.speakers, c.imported_at,
              (SELECT count(*) FROM sessions s WHERE s.conv_id = c.id) AS sessions,
              (SELECT count(*) FROM turns t WHERE t.conv_id = c.id) AS turns,
              (SELECT count(*) FROM qa q WHERE q.conv_id = c.id) AS questions,
              (SELECT count(*) FROM episodes e WHERE e.conv_id = c.id) AS episodes,
              (SELECT count(*) FROM records r WHERE r.conv_id = c.id AND r.status <> 'deleted') AS records,
              (SELECT count(*) FROM entities n WHERE n.conv_id = c.id) AS entities,
              (SELECT count(*) FROM events v WHERE v.conv_id = c.id) AS events,
              (SELECT count(*) FROM built_sessions b WHERE b.conv_id = c.id) AS built_sessions
            FROM conversations c ORDER BY c.id
            """
        )

    def stats(self, conv_id: str | None = None) -> dict[str, int]:
        """Counts for the whole home or one conversation."""
        if conv_id is not None:
            self.require_conversation(conv_id)
        where = "" if conv_id is None else " WHERE conv_id = ?"
        params = [] if conv_id is None else [conv_id]
        conv_where = "" if conv_id is None else " WHERE id = ?"
        sql = f"SELECT count(*) FROM conversations{conv_where}"  # noqa: S608
        counts = {"conversations": int(self.scalar(sql, params))}
        for name, table, extra in (
            ("sessions", "sessions", ""),
            ("turns", "turns", ""),
            ("questions", "qa", ""),
            ("episodes", "episodes", ""),
            ("records", "records", " status <> 'deleted'"),
            ("entities", "entities", ""),
            ("events", "events", ""),
            ("edges", "edges", ""),
            ("traces", "traces", ""),
            ("edits", "edits", ""),
        ):
            clause = where
            if extra:
                clause = f"{where} AND{extra}" if where else f" WHERE{extra}"
            counts[name] = int(self.scalar(f"SELECT count(*) FROM {table}{clause}", params))  # noqa: S608
        return counts
