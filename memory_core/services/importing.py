"""Import, list, stats, preview and export of conversations.

A file is read and validated completely (``memory_core.ingest``) before the store is
touched; then all of its conversations are saved in one transaction. Re-importing an id
needs ``replace=True``: the old conversation, its memory, traces and edits are replaced
atomically and its vectors dropped from the index — or ``append_file`` / ``remember``, which
grow it (new sessions, turns at the end of its last session) and keep its memory, edits and
traces (``services/growing.py``); the next build does only what is new.

    ImportService(store, index, settings)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.contracts import RelationalStore, VectorStore
from memory_core.errors import IngestError, StoreError
from memory_core.ingest import (
    Loaded,
    Streamed,
    detect_bytes,
    detect_format,
    load_bytes,
    load_file,
    stream_file,
)
from memory_core.ingest.common import show
from memory_core.models import Conversation, Record, Source, SourceLike, Turn
from memory_core.progress import OnProgress, Step
from memory_core.services.growing import Growth, grow, remember_turns
from memory_core.store.forget import forget
from memory_core.summaries import ConversationSummary, ImportPreview, PreviewConversation, PreviewTurn

log = logging.getLogger(__name__)
STREAM_MEMORY_MB = 256  # DuckDB's cache while a streamed file is saved
ALREADY_IMPORTED = "already imported"  # how an IngestError's ``what`` starts for an id already there


@dataclass(frozen=True)
class ImportResult:
    ids: list[str]
    warnings: list[str] = field(default_factory=list)
    format: str = ""
    replaced: list[str] = field(default_factory=list)


class ImportService:
    def __init__(self, store: RelationalStore, index: VectorStore, settings: Settings) -> None:
        self.store = store
        self.index = index
        self.settings = settings

    # ------------------------------------------------------------------ reading
    def list_conversations(self) -> list[ConversationSummary]:
        return [ConversationSummary.of(row) for row in self.store.conversation_summaries()]

    def conversation_ids(self) -> list[str]:
        return self.store.conversation_ids()

    def stats(self, conv_id: str | None = None) -> dict[str, int]:
        return self.store.stats(conv_id)

    def conversation(self, conv_id: str) -> Conversation:
        return self.store.load_conversation(conv_id)

    def require_conversations(self, conv_ids: Sequence[str]) -> None:
        """Every id is a conversation of this home, or the one-line error naming the first
        that is not (checked before a cluster is started for them)."""
        for conv_id in conv_ids:
            self.store.require_conversation(conv_id)

    def turns(self, conv_id: str, ids: Sequence[str] | None = None, *, strict: bool = True) -> list[Turn]:
        """The turns of ``conv_id`` with these ids (every turn without ``ids``), in dialogue
        order; an unknown id is an error, or skipped with ``strict=False`` (a record's evidence
        shown next to it)."""
        self.store.require_conversation(conv_id)
        if ids is None:
            return self.store.turns(conv_id)
        wanted = list(dict.fromkeys(ids))
        found = self.store.turns(conv_id, wanted)
        missing = sorted(set(wanted) - {t.id for t in found})
        if missing and strict:
            raise StoreError(f"conversation '{conv_id}' has no turn {', '.join(missing[:5])}")
        return found

    def record(self, record_id: str) -> Record:
        return self.store.record(record_id)

    # ------------------------------------------------------------------ importing
    def load(self, source: SourceLike, *, fmt: str | None = None, display: str | None = None) -> Loaded:
        """Read and validate a file or an upload (read from memory, no temp file: the same checks
        and messages) without touching the store."""
        src = Source.of(source)
        if src.data is not None:
            return load_bytes(src.name, src.data, fmt=fmt, limits=self.settings.limits)
        return load_file(src.file, fmt=fmt, limits=self.settings.limits, display=display)

    def detect_format(self, source: SourceLike) -> str:
        src = Source.of(source)
        if src.data is not None:
            return detect_bytes(src.name, src.data, limits=self.settings.limits)
        return detect_format(src.file, limits=self.settings.limits)

    def import_file(self, source: SourceLike, *, fmt: str | None = None, replace: bool = False,
                    on_progress: OnProgress | None = None) -> ImportResult:
        """Import every conversation in ``source``: in one transaction, or per batch of items for
        a streamed benchmark layout read from a path (see ``save_streamed``)."""
        src = Source.of(source)
        if src.data is not None:
            return self.save_loaded(self.load(src, fmt=fmt), replace=replace, file=src.name)
        streamed = stream_file(src.file, fmt=fmt, limits=self.settings.limits, on_progress=on_progress)
        return self.save_streamed(streamed, replace=replace, file=str(src.file), on_progress=on_progress)

    def save_streamed(self, streamed: Streamed, *, replace: bool = False, file: str = "",
                      batch: int = 25, on_progress: OnProgress | None = None) -> ImportResult:
        """Save a validated file. A file read whole is saved in one transaction; a streamed
        one (LongMemEval: hundreds of large items) is read again and saved ``batch``
        conversations per transaction, so memory stays bounded. The whole file was validated
        first, so only a storage failure can stop it midway: the batches before it stay
        saved, each conversation whole, and re-running with ``--replace`` completes it.
        """
        if not streamed.per_item:
            loaded = Loaded(streamed.format, list(streamed.conversations()), streamed.warnings)
            return self.save_loaded(loaded, replace=replace, file=file)
        existing = self._existing(streamed.ids, replace, file)
        chunk: list[Conversation] = []
        saved = 0
        with self.store.memory_capped(STREAM_MEMORY_MB):
            for conv in streamed.conversations():
                chunk.append(conv)
                if len(chunk) >= batch:
                    saved += self._save_batch(chunk, replace, saved, len(streamed.ids), on_progress)
                    chunk = []
            saved += self._save_batch(chunk, replace, saved, len(streamed.ids), on_progress)
        log.info("imported %d conversations from %s (%s, %d per transaction)", saved, file,
                 streamed.format, batch)
        return self._result(streamed.ids, streamed.warnings, streamed.format, existing)

    def append_file(self, path: str | Path, *, fmt: str | None = None) -> list[Growth]:
        """Grow known conversations with what ``path`` adds (``import --append``): every
        conversation in the file is checked before any is written, then each grows in its own
        transaction."""
        loaded = self.load(path, fmt=fmt)
        for conv in loaded.conversations:
            grow(self.store, conv, str(path), write=False)
        out = [grow(self.store, conv, str(path), loaded.warnings if i == 0 else ())
               for i, conv in enumerate(loaded.conversations)]
        log.info("appended to %s from %s", ", ".join(g.conv_id for g in out), path)
        return out

    def remember(self, conv_id: str, turns: list[tuple[str, str]], *, session: int | None = None,
                 when: datetime | None = None) -> Growth:
        """Append (speaker, text) turns to ``conv_id``: a new session, or the end of its last."""
        return remember_turns(self.store, self.settings.limits, conv_id, turns, session=session, when=when)

    def _existing(self, ids: list[str], replace: bool, file: str) -> list[str]:
        """The ids already in the home; refused unless ``replace``."""
        existing = [i for i in ids if self.store.has_conversation(i)]
        if existing and not replace:
            raise IngestError(file, f"conversation {show(existing[0])}",
                              f"{ALREADY_IMPORTED}; use --replace to replace it")
        return existing

    def _save_batch(self, chunk: list[Conversation], replace: bool, saved: int = 0, total: int = 0,
                    on_progress: OnProgress | None = None) -> int:
        """Save ``chunk`` in one transaction (all of it or nothing)."""
        with self.store.atomic():
            for conv in chunk:
                self.store.save_conversation(conv, replace=replace)
        if on_progress is not None and chunk:
            on_progress(Step("saved", saved + len(chunk), total))
        return len(chunk)

    def _result(self, ids: list[str], warnings: list[str], fmt: str, replaced: list[str]) -> ImportResult:
        """The import's result; replaced conversations' old vectors are dropped first."""
        return ImportResult(ids=list(ids), warnings=[*warnings, *self._drop_vectors(replaced)], format=fmt,
                            replaced=replaced)

    def save_loaded(self, loaded: Loaded, *, replace: bool = False, file: str = "") -> ImportResult:
        """Save validated conversations atomically (all of the file or nothing)."""
        ids = [c.id for c in loaded.conversations]
        existing = self._existing(ids, replace, file)
        self._save_batch(loaded.conversations, replace)
        log.info("imported %s from %s (%s)", ", ".join(ids), file, loaded.format)
        return self._result(ids, loaded.warnings, loaded.format, existing)

    def _drop_vectors(self, conv_ids: list[str]) -> list[str]:
        """Forget replaced conversations' vectors (a home without an index on disk has none)."""
        try:
            for conv_id in conv_ids:
                self.index.delete_conversation(conv_id)
        except Exception as exc:  # the DuckDB side is committed; a rebuild re-indexes
            log.warning("could not drop vectors of %s: %s", conv_ids, exc)
            return [f"vector index: could not drop old vectors of {', '.join(conv_ids)} ({exc}); "
                    "rebuild to refresh them"]
        return []

    def forget(self, conv_id: str, *, session: int | None = None, who: str, why: str = "") -> dict[str, Any]:
        """Delete a conversation (or one session) and everything derived from it, leaving one
        audit line without content (``memory_core/store/forget.py``)."""
        return forget(self.store, self.index, conv_id, session=session, who=who, why=why)

    def compact_index(self) -> dict[str, int]:
        """Rewrite the vector index with what the build gives Chroma now — vectors, keys and
        where-to metadata — and reclaim deleted items' space: an index written when Chroma was
        still handed documents and names keeps none of them after this (``VectorIndex.compact``).
        The items kept, per collection (empty: nothing is on disk yet)."""
        return self.index.compact()

    def preview(self, source: SourceLike, max_turns: int = 20, *, fmt: str | None = None,
                display: str | None = None) -> ImportPreview:
        """What an import of a file or an upload would bring in (for the Load page) — nothing is
        written."""
        loaded = self.load(source, fmt=fmt, display=display)
        return _preview(loaded, max_turns, self.store.has_conversation)

    # ------------------------------------------------------------------ export
    def export_json(self, conv_id: str) -> dict[str, Any]:
        """The conversation and its memory as plain JSON values (keys in docs/formats.md)."""
        conv = self.store.load_conversation(conv_id)
        store = self.store

        def dump(items: list[Any]) -> list[dict[str, Any]]:
            return [item.model_dump(mode="json") for item in items]

        return {
            "conversation": {
                "id": conv.id,
                "speakers": list(conv.speakers),
                "source": {"format": conv.source_format, "name": conv.source_name},
            },
            "sessions": [
                {"index": s.index, "time": s.time.isoformat() if s.time else None,
                 "time_text": s.time_text, "turns": len(s.turns)}
                for s in conv.sessions
            ],
            "turns": [
                {"id": t.id, "session": t.session, "speaker": t.speaker, "text": t.text,
                 "image_caption": t.image_caption, "image_url": t.image_url,
                 "session_time": t.session_time.isoformat() if t.session_time else None}
                for t in conv.turns
            ],
            "episodes": [
                {"id": e.id, "session": e.session, "turn_ids": list(e.turn_ids), "theme": list(e.theme),
                 "theme_type": e.theme_type.value, "boundary_reason": e.boundary_reason,
                 "boundary_score": e.boundary_score}
                for e in store.episodes(conv_id)
            ],
            "records": dump(store.records(conv_id, include_inactive=True)),
            "entities": dump(store.entities(conv_id)),
            "entity_merges": dump(store.entity_merges(conv_id)),
            "events": dump(store.events(conv_id)),
            "event_links": dump(store.event_links(conv_id)),
            "edges": dump(store.edges(conv_id)),
            "qa": dump(list(conv.qa)),
        }


def _preview(loaded: Loaded, max_turns: int, exists: Callable[[str], bool]) -> ImportPreview:
    return ImportPreview(
        format=loaded.format,
        warnings=tuple(loaded.warnings),
        conversations=tuple(
            PreviewConversation(
                id=c.id,
                exists=bool(exists(c.id)),
                speakers=tuple(c.speakers),
                sessions=len(c.sessions),
                turns=sum(len(s.turns) for s in c.sessions),
                questions=len(c.qa),
                first_turns=tuple(
                    PreviewTurn(id=t.id, session=t.session, speaker=t.speaker, text=t.text,
                                image_caption=t.image_caption,
                                session_time=t.session_time.isoformat() if t.session_time else None)
                    for t in c.turns[:max_turns]
                ),
            )
            for c in loaded.conversations
        ),
    )
