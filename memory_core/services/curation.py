"""Curation: versioned record edits, entity merges, reverts, impact of corrections.

    CurationService(store, index, embedder, queries)

Every change is one transaction that saves the record(s) with a version check (optimistic
concurrency: ``ConflictError`` names the other change), appends an ``Edit`` (who, when,
before, after, why) and writes the records' vectors; then the entity graph is patched
(``construct.graph_refresh.refresh_graph``) and the conversation's query caches are dropped
(``queries.invalidate``). The merge and revert algorithms are pure functions in
``curation.merging``; this part reads, validates, and writes what they return.

    page = services.curation.search_records(conv, query="paint", filters=RecordFilter(session=(2,)),
                                            sort="-confidence")
    rec = services.curation.edit_record(rec.id, {"value": "oil paint"}, who="ana", why="typo",
                                        expected_version=rec.version)
    services.curation.revert_edit(edit.id, who="ana")
    report = services.curation.impact(conv)   # re-ask saved questions, compare with earlier traces
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from memory_core.construct.graph_refresh import Change, Names, annotator_pairs, refresh_graph
from memory_core.contracts import RelationalStore, VectorStore
from memory_core.curation import edits as ed
from memory_core.curation import merging, review
from memory_core.curation.impact import DEFAULT_CAP, compare, failed, saved_questions, word_diff
from memory_core.curation.merging import ENTITY, RECORD
from memory_core.curation.reindex import apply_record_vectors, prepare_record_vectors
from memory_core.curation.results import RecordPage
from memory_core.embeddings import Embedder
from memory_core.errors import ConflictError, MnemoscopeError, StoreError
from memory_core.impact_report import ImpactReport, ImpactRow
from memory_core.models import Edit, Episode, Record, RecordStatus
from memory_core.progress import OnProgress, Step
from memory_core.record_filter import RecordFacets, RecordFilter
from memory_core.services.querying import QueryService

log = logging.getLogger(__name__)

__all__ = ["ENTITY", "RECORD", "CurationService"]


class CurationService:
    def __init__(self, store: RelationalStore, index: VectorStore, embedder: Embedder,
                 queries: QueryService) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.queries = queries

    # ------------------------------------------------------------------ reading
    def search_records(self, conv_id: str, *, query: str = "", filters: RecordFilter | None = None,
                       sort: str = "episode", page: int = 1, page_size: int = 50) -> RecordPage:
        """A page (1-based) of records; see ``CurationStore.search_records`` for filters."""
        self.store.require_conversation(conv_id)
        rows, total = self.store.search_records(conv_id, query=query, filters=filters, sort=sort,
                                                page=page, page_size=page_size)
        return RecordPage(rows=rows, total=total, page=page, page_size=page_size)

    def records(self, conv_id: str, *, episode_id: str | None = None,
                include_inactive: bool = False) -> list[Record]:
        """The conversation's records (one episode's with ``episode_id``), active only unless
        ``include_inactive``: what a page lists beside a transcript or a graph."""
        self.store.require_conversation(conv_id)
        return self.store.records(conv_id, episode_id=episode_id, include_inactive=include_inactive)

    def records_by_ids(self, ids: Sequence[str]) -> list[Record]:
        """These records, in the order asked; an id deleted since it was shown (a graph drawn
        before an edit, a trace's match) is skipped."""
        out = []
        for record_id in ids:
            try:
                out.append(self.store.record(record_id))
            except StoreError:
                continue
        return out

    def records_naming(self, conv_id: str, names: Sequence[str]) -> list[Record]:
        """Records about an entity with one of these names, or naming it as their value
        ("moved to Paris"): what a graph node's panel lists."""
        self.store.require_conversation(conv_id)
        return self.store.records_naming(conv_id, names, as_value=True)

    def record_facets(self, conv_id: str, *, as_of: str | None = None) -> RecordFacets:
        """Distinct values with counts for the filter widgets; ``as_of`` (``YYYY-MM-DD``): the
        counts of the memory as it stood on that day (the records ``search_records`` lists then)."""
        return self.store.record_facets(conv_id, as_of=as_of)

    def edit_log(self, conv_id: str) -> list[Edit]:
        """Every edit of the conversation, oldest first."""
        return self.store.edits(conv_id)

    def record_history(self, record_id: str) -> list[Edit]:
        return self.store.edits(target_id=record_id)

    def cite_counts(self, conv_id: str, *, limit: int = 500) -> dict[str, int]:
        """record id -> in how many of the newest ``limit`` saved traces it was matched."""
        traces = []
        for row in self.store.traces(conv_id, limit=limit):
            try:
                traces.append(self.store.trace(str(row["id"])))
            except StoreError:  # removed meanwhile
                continue
        return dict(review.cite_counts(traces))

    def review_queue(self, conv_id: str, *, skip: Collection[str] = (),
                     cited: Mapping[str, int] | None = None, query: str = "",
                     filters: RecordFilter | None = None) -> list[Record]:
        """Active records to review: lowest confidence, then most cited (``cited``, else
        ``cite_counts``), then most important first; ``skip``: ids already reviewed;
        ``query`` / ``filters``: only the records ``search_records`` would list for them."""
        self.store.require_conversation(conv_id)
        counts = self.cite_counts(conv_id) if cited is None else cited
        if not query and (filters is None or filters.is_empty()):
            return review.review_queue(self.store.records(conv_id), counts, skip)
        rows: list[Record] = []
        page, total = 1, 1
        while len(rows) < total:
            found, total = self.store.search_records(conv_id, query=query, filters=filters, page=page,
                                                     page_size=1000)
            if not found:
                break
            rows += found
            page += 1
        return review.review_queue(rows, counts, skip)

    def supersession(self, conv_id: str) -> dict[str, str]:
        """old record id -> id of the later record (same entity and property) superseding it."""
        self.store.require_conversation(conv_id)
        order = {e.id: i for i, e in enumerate(self.store.episodes(conv_id))}
        return review.superseded_by(self.store.records(conv_id), order)

    @staticmethod
    def answer_diff(before: str, after: str) -> list[tuple[str, str]]:
        """Two answers word by word: (``"="`` kept / ``"-"`` removed / ``"+"`` added, words)."""
        return word_diff(before, after)

    @staticmethod
    def record_diff(edit: Edit) -> list[tuple[str, Any, Any]]:
        """(field, before, after) of an edit; for a merge, one row per re-pointed record field."""
        return merging.record_diff(edit)

    def export_corrected_records(self, conv_id: str) -> str:
        """JSONL: the active records after corrections, in dialogue order."""
        self.store.require_conversation(conv_id)
        order = {e.id: i for i, e in enumerate(self.store.episodes(conv_id))}
        records = sorted(self.store.records(conv_id), key=lambda r: (order.get(r.episode_id, 1 << 30), r.id))
        return "".join(json.dumps(ed.snapshot(r), ensure_ascii=False) + "\n" for r in records)

    # ------------------------------------------------------------------ record changes
    def edit_record(self, record_id: str, changes: Mapping[str, Any], *, who: str, why: str = "",
                    expected_version: int, via: str = "") -> Record:
        """Change fields of a record; ``expected_version`` is the version the editor saw."""
        current = self.store.record(record_id)
        where = f"record '{record_id}'"
        clean = ed.validate_changes(where, changes)
        clean = {k: v for k, v in clean.items() if getattr(current, k) != v}
        if not clean:
            raise StoreError(f"{where}: nothing changed")
        updated = ed.apply_changes(current, clean)
        if "evidence_turn_ids" in clean or "episode_id" in clean:
            episode = self._episode(updated.conv_id, updated.episode_id, where)
            ed.check_evidence(where, updated.evidence_turn_ids, episode.id, episode.turn_ids)
        return self._save(current, updated, expected_version, action="update", who=who, why=why, via=via)[0]

    def delete_record(self, record_id: str, *, who: str, why: str = "",
                      expected_version: int | None = None, via: str = "") -> Record:
        """Soft delete: kept for history and revert, excluded everywhere else."""
        return self._set_status(record_id, RecordStatus.DELETED, "delete", who, why, expected_version, via)

    def mark_wrong(self, record_id: str, *, who: str, why: str = "",
                   expected_version: int | None = None, via: str = "") -> Record:
        """Kept and shown as wrong; excluded from retrieval."""
        return self._set_status(record_id, RecordStatus.WRONG, "mark_wrong", who, why, expected_version, via)

    def restore_record(self, record_id: str, *, who: str, why: str = "",
                       expected_version: int | None = None, via: str = "") -> Record:
        """Make a wrong or deleted record active again."""
        return self._set_status(record_id, RecordStatus.ACTIVE, "restore", who, why, expected_version, via)

    def create_record(self, conv_id: str, episode_id: str, fields: Mapping[str, Any],
                      evidence_turn_ids: Sequence[str], *, who: str, why: str = "", via: str = "") -> Record:
        """Add a record an annotator wrote from selected turns of one episode."""
        self.store.require_conversation(conv_id)
        where = f"new record in episode '{episode_id}'"
        episode = self._episode(conv_id, episode_id, where)
        given = dict(fields)
        for key in ("id", "conv_id", "episode_id", "status", "version", "origin"):
            if key in given:
                raise StoreError(f"{where}: field '{key}' is set by the program, not by the annotator")
        missing = [k for k in ed.REQUIRED_TEXT if not str(given.get(k) or "").strip()]
        if missing:
            raise StoreError(f"{where}: field '{missing[0]}': must not be empty")
        given["evidence_turn_ids"] = list(evidence_turn_ids)
        clean = ed.validate_changes(where, given)
        ed.check_evidence(where, clean["evidence_turn_ids"], episode.id, episode.turn_ids)
        if "source_speaker" not in clean:
            first = self.store.turns(conv_id, [clean["evidence_turn_ids"][0]])
            clean["source_speaker"] = first[0].speaker if first else None
        clean.setdefault("confidence", 1.0)
        record = Record(id=ed.new_record_id(episode.id), conv_id=conv_id, episode_id=episode.id,
                        origin="annotator", status=RecordStatus.ACTIVE, version=1, **clean)
        edit = ed.make_edit(conv_id=conv_id, target_kind=RECORD, target_id=record.id, action="create",
                            who=who, why=why, before=None, after=ed.snapshot(record), via=via)
        prepared = prepare_record_vectors(self.embedder, [record], {episode.id: episode.session})
        with self.store.atomic():
            self.store.insert_record(record)
            self.store.add_edit(edit)
            apply_record_vectors(self.index, prepared)
        self._after_change(conv_id, [(None, record)])
        log.info("%s created %s", edit.who, record.id)
        return record

    # ------------------------------------------------------------------ entities
    def merge_entities(self, conv_id: str, keep: str, merge: str, *, who: str, why: str = "",
                       via: str = "") -> Edit:
        """Re-point every record naming entity ``merge`` (any of its spellings, as the record's
        entity or as its value) to ``keep``.

        Names resolve like the graph does (the build's normalised names and aliases). Records
        whose entity is re-pointed take ``keep``'s entity type. One edit records the merge
        (target kind ``entity``), with every touched record's before/after and version.
        """
        self.store.require_conversation(conv_id)
        keep, merge = keep.strip(), merge.strip()
        store = self.store
        names = Names.of(store.entities(conv_id), store.entity_merges(conv_id),
                         annotator_pairs(store.edits(conv_id)), store.conversation_speakers(conv_id))
        keep_key, merge_key = merging.merge_keys(names, keep, merge)
        found: dict[str, list[Record]] = {}
        for name, key in ((keep, keep_key), (merge, merge_key)):
            found[key] = merging.naming(names, key, store.records_naming(
                conv_id, sorted(names.spellings({key}, [name]))))
            if not found[key]:
                raise StoreError(f"merge entities: no record names entity '{name}' in '{conv_id}'")
        known = names.known.get(keep_key)
        keep_type = known.type if known is not None else merging.dominant_type(
            store.records_naming(conv_id, [keep], as_value=False, active_only=True), keep)
        plan = merging.plan_merge(names, keep, merge, found[merge_key], keep_type)
        edit = ed.make_edit(conv_id=conv_id, target_kind=ENTITY, target_id=plan.merge_name, action="merge",
                            who=who, why=why, before=plan.before, after=plan.after, via=via)
        self._save_many(conv_id, plan.updates, edit)
        log.info("%s merged entity %r into %r (%d records)", edit.who, plan.merge_name, plan.keep_name,
                 len(plan.updates))
        return edit

    # ------------------------------------------------------------------ revert
    def revert_edit(self, edit_id: str, *, who: str, why: str = "", via: str = "") -> Edit:
        """A new edit restoring what ``edit_id`` changed; conflicts if the target changed since."""
        edit = self.store.edit(edit_id)
        why = why or f"revert {edit.action} {edit_id}"
        if edit.target_kind == ENTITY:
            return self._revert_merge(edit, who=who, why=why, via=via)
        current = self.store.record(edit.target_id)
        if merging.record_revert_is_stale(edit, current):
            raise ConflictError(self._changed_since(edit, current))
        restored = merging.plan_record_revert(edit, current)
        return self._save(current, restored, current.version, action="revert", who=who, why=why,
                          reverts=edit.id, via=via)[1]

    # ------------------------------------------------------------------ impact
    def impact(self, conv_id: str, *, strategy: str | None = None, cap: int = DEFAULT_CAP,
               on_progress: OnProgress | None = None,
               before: datetime | None = None) -> ImpactReport:
        """Re-ask the conversation's saved questions against the corrected memory.

        ``on_progress`` gets a ``Step("impact", done, total, conv_id, detail=the ImpactRow)`` per
        question. Each question is compared with its most recent earlier trace (same strategy): answer,
        plan and buffer differences, with both trace ids for a side-by-side view. With
        ``before`` (an edit's time) only traces made before it count, so the comparison is
        with the memory as it stood before that edit.
        """
        self.store.require_conversation(conv_id)
        started = time.perf_counter()
        asked = [row for row in self.store.traces(conv_id, limit=100_000) if row.get("kind", "ask") == "ask"]
        questions = saved_questions(  # questions only: an agent's search is not re-asked
            asked,
            [q.question for q in self.store.qa_items(conv_id)],
            strategy=strategy, default_strategy=self.queries.settings.strategy, cap=cap,
            before=before,
        )
        rows: list[ImpactRow] = []
        for i, saved in enumerate(questions, start=1):
            earlier = self.store.trace(saved.before_trace_id) if saved.before_trace_id else None
            try:
                after = self.queries.ask(conv_id, saved.question, strategy=saved.strategy)
            except MnemoscopeError as exc:
                row = failed(saved, str(exc))
            else:
                row = compare(earlier, after)
            rows.append(row)
            if on_progress is not None:
                on_progress(Step("impact", i, len(questions), conv_id=conv_id, detail=row))
        return ImpactReport(conv_id=conv_id, strategy=strategy, rows=rows,
                            edits_considered=len(self.store.edits(conv_id)),
                            seconds=round(time.perf_counter() - started, 3))

    # ------------------------------------------------------------------ internals
    def _episode(self, conv_id: str, episode_id: str, where: str) -> Episode:
        found = next((e for e in self.store.episodes(conv_id) if e.id == episode_id), None)
        if found is None:
            raise StoreError(f"{where}: unknown episode '{episode_id}' in conversation '{conv_id}'")
        return found

    def _set_status(self, record_id: str, status: RecordStatus, action: str, who: str, why: str,
                    expected_version: int | None, via: str) -> Record:
        current = self.store.record(record_id)
        if current.status == status:
            raise StoreError(f"record '{record_id}' is already {status.value}")
        version = current.version if expected_version is None else expected_version
        return self._save(current, current.model_copy(update={"status": status}), version,
                          action=action, who=who, why=why, via=via)[0]

    def _save(self, current: Record, updated: Record, expected_version: int, *, action: str,
              who: str, why: str, reverts: str | None = None, via: str = "") -> tuple[Record, Edit]:
        """One transaction: version-checked record save, its edit, its vector; then graph."""
        if current.version != expected_version:  # fail before embedding anything
            raise ConflictError(self._conflict(current, expected_version))
        edit = ed.make_edit(conv_id=current.conv_id, target_kind=RECORD, target_id=current.id,
                            action=action, who=who, why=why, before=ed.snapshot(current),
                            after=ed.snapshot(updated.model_copy(update={"version": expected_version + 1})),
                            reverts=reverts, via=via)
        saved = self._save_many(current.conv_id, [(current, updated)], edit)[0]
        log.info("%s %s %s (version %d)", edit.who, action, current.id, saved.version)
        return saved, edit

    def _save_many(self, conv_id: str, updates: Sequence[tuple[Record, Record]], edit: Edit) -> list[Record]:
        """One transaction: each (old, new) saved if the record is still at ``old``'s version,
        the edit, the vectors; then the graph patch. Returns the saved records."""
        session_of = {e.id: e.session for e in self.store.episodes(conv_id)}
        prepared = prepare_record_vectors(self.embedder, [new for _, new in updates], session_of)
        saved: list[Record] = []
        with self.store.atomic():
            for old, new in updates:
                try:
                    saved.append(self.store.update_record(new, expected_version=old.version))
                except ConflictError:
                    raise ConflictError(self._conflict(self.store.record(old.id), old.version)) from None
            self.store.add_edit(edit)
            apply_record_vectors(self.index, prepared)
        self._after_change(conv_id, list(updates))
        return saved

    def _revert_merge(self, edit: Edit, *, who: str, why: str, via: str) -> Edit:
        current = {rid: self.store.record(rid) for rid in (edit.before or {}).get("records", {})}
        stale = merging.stale_since(edit, current)
        if stale is not None:
            raise ConflictError(self._changed_since(edit, stale))
        updates, before, after = merging.plan_merge_revert(edit, current)
        revert = ed.make_edit(conv_id=edit.conv_id, target_kind=ENTITY, target_id=edit.target_id,
                              action="revert", who=who, why=why, before=before, after=after,
                              reverts=edit.id, via=via)
        self._save_many(edit.conv_id, updates, revert)
        return revert

    def _after_change(self, conv_id: str, changes: Sequence[Change]) -> None:
        """Patch the entity graph around the changed records and drop query caches."""
        try:
            refresh_graph(self.store, self.index, self.embedder, conv_id, changes=changes)
        finally:
            self.queries.invalidate(conv_id)

    def refresh_entity_graph(self, conv_id: str) -> None:
        """Recompute every entity's row and edges from the active records with the patch rules
        (no new alias merges; build-time importance kept). Edits patch only what they touch."""
        self.store.require_conversation(conv_id)
        refresh_graph(self.store, self.index, self.embedder, conv_id)

    def _conflict(self, current: Record, expected_version: int) -> str:
        last = next(reversed(self.store.edits(target_id=current.id)), None)
        return merging.conflict_message(current, expected_version, last)

    def _changed_since(self, edit: Edit, current: Record) -> str:
        return merging.changed_since_message(edit, current, self.store.edits(target_id=current.id))
