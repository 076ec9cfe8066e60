"""Forgetting: remove a conversation (or one session of it) with everything derived from it.

One transaction deletes the rows — turns, sessions, QA items, episodes, records, entities,
merges, edges, events, event links, built-session marks, builds, traces, LLM-call accounting
and cached LLM answers tagged with the conversation — and writes one audit line (an ``edits``
row, action ``forget``) that holds counts only, never content; the conversation's rows in
the access audit trail keep who/what/when but lose any detail quoting it (the question asked).
Then ``reclaim`` makes the deleted bytes leave the database files: DuckDB keeps deleted
strings in free blocks, so its file is rewritten; PostgreSQL rewrites the touched tables (``VACUUM FULL``).

Forgetting one session removes that session's turns and memory, every trace of the
conversation (their buffers quote turns), its cached LLM answers, the content of every edit
that touched a removed record, and the conversation-wide graph, which the next build
recomputes from the records that remain.
"""

from __future__ import annotations

import uuid
from typing import Any

from memory_core.contracts import RelationalStore, VectorStore
from memory_core.errors import StoreError
from memory_core.models import Edit
from memory_core.store.access import CONTENT_ACTIONS
from memory_core.store.activity import ActivityStore
from memory_core.store.base import now
from memory_core.store.conversations import REPLACE_TABLES, ConversationStore
from memory_core.store.memory import MemoryStore

# tables holding a conversation's rows, by conv_id (conversations itself is keyed by id)
FORGET_TABLES = (*REPLACE_TABLES, "llm_calls", "llm_cache")
GRAPH_TABLES = ("entities", "entity_merges", "edges", "event_links")
FORGET = "forget"
FORGOTTEN = "(content forgotten)"


class ForgetStore(ConversationStore, MemoryStore, ActivityStore):
    def forget_conversation(self, conv_id: str, *, who: str, why: str = "") -> dict[str, int]:
        """Delete every row of ``conv_id``, write the audit line, reclaim the space.

        Returns the number of rows removed per table.
        """
        self.require_conversation(conv_id)
        with self.atomic():
            counts = self.delete_conversation_rows(conv_id, FORGET_TABLES)
            self.add_edit(_audit(conv_id, "conversation", conv_id, who, why, counts))
            counts["audit_emptied"] = self._empty_audit(conv_id)
        self.reclaim((*FORGET_TABLES, "conversations", "audit"))
        return counts

    def forget_session(self, conv_id: str, session: int, *, who: str, why: str = "") -> dict[str, Any]:
        """Delete one session's turns and memory (see the module docstring for what else goes).

        Returns per-table counts plus ``record_ids`` and ``episode_ids`` removed (for the
        vector index).
        """
        self.require_conversation(conv_id)
        known = [r[0] for r in self.all("SELECT idx FROM sessions WHERE conv_id = ? ORDER BY idx", [conv_id])]
        if session not in known:
            raise StoreError(f"conversation '{conv_id}' has no session {session} (sessions: "
                             f"{', '.join(map(str, known)) or 'none'})")
        with self.atomic():
            episode_ids = self.session_episode_ids(conv_id, session)
            record_ids = [r[0] for r in self.all(
                "SELECT id FROM records WHERE conv_id = ? AND episode_id = ANY(?)", [conv_id, episode_ids])]
            counts: dict[str, Any] = {
                "turns": self.execute_count("DELETE FROM turns WHERE conv_id = ? AND session = ?",
                                            [conv_id, session]),
                "sessions": self.execute_count("DELETE FROM sessions WHERE conv_id = ? AND idx = ?",
                                               [conv_id, session]),
                **self.delete_session_memory(conv_id, session),
            }
            for table in (*GRAPH_TABLES, "traces", "llm_cache"):
                counts[table] = self.execute_count(f"DELETE FROM {table} WHERE conv_id = ?", [conv_id])  # noqa: S608
            counts["edits_emptied"] = self._empty_edits(conv_id, set(record_ids))
            self.add_edit(_audit(conv_id, "session", str(session), who, why,
                                 {k: v for k, v in counts.items() if isinstance(v, int)}))
            counts["audit_emptied"] = self._empty_audit(conv_id)
        self.reclaim(("turns", "sessions", "records", "events", "episodes", "built_sessions",
                      *GRAPH_TABLES, "traces", "llm_cache", "edits", "audit"))
        counts["record_ids"] = record_ids
        counts["episode_ids"] = episode_ids
        return counts

    def _empty_audit(self, conv_id: str) -> int:
        """Blank the detail of the conversation's audit rows that may quote it (a question asked,
        entity names of a merge, an imported file's name); who did what, when and where stays."""
        return self.execute_count(
            "UPDATE audit SET detail = ? WHERE conv_id = ? AND detail <> ? AND action = ANY(?)",
            [FORGOTTEN, conv_id, FORGOTTEN, list(CONTENT_ACTIONS)])

    def _empty_edits(self, conv_id: str, record_ids: set[str]) -> int:
        """Blank before/after of the edits that touched any of ``record_ids``."""
        if not record_ids:
            return 0
        emptied = 0
        for edit_id, target, before, after in self.all(
                "SELECT id, target_id, before, after FROM edits WHERE conv_id = ?", [conv_id]):
            text = f"{before or ''}{after or ''}"
            if target in record_ids or any(rid in text for rid in record_ids):
                emptied += self.execute_count(
                    "UPDATE edits SET before = NULL, after = NULL, why = ? WHERE id = ?",
                    ["(content forgotten)", edit_id])
        return emptied


def _audit(conv_id: str, kind: str, target: str, who: str, why: str, counts: dict[str, int]) -> Edit:
    who = (who or "").strip()
    if not who or "\n" in who:
        raise StoreError(f"forget {kind} '{target}': say who asks for it (one line)")
    return Edit(id=uuid.uuid4().hex[:16], conv_id=conv_id, target_kind=kind, target_id=target, action=FORGET,
                who=who, at=now(), before=None, after={"removed": counts}, why=why.strip())


def forget(store: RelationalStore, index: VectorStore | None, conv_id: str, *, session: int | None = None,
           who: str, why: str = "") -> dict[str, Any]:
    """Forget a conversation (or one session) in the store and the vector index, then compact
    both so no deleted text stays in their files. ``index=None``: the home has no index yet."""
    if session is None:
        counts: dict[str, Any] = store.forget_conversation(conv_id, who=who, why=why)
        if index is not None:
            index.delete_conversation(conv_id)
    else:
        counts = store.forget_session(conv_id, session, who=who, why=why)
        if index is not None:
            index.delete("turns", where={"$and": [{"conv_id": conv_id}, {"session": session}]})
            index.delete("records", ids=counts["record_ids"])
            index.delete("entities", where={"conv_id": conv_id})  # the graph is recomputed
    if index is not None:
        index.compact()
    return counts
