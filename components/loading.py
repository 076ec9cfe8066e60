"""Load-page pieces: choose a source (a shipped sample or an upload), preview it, import it;
the per-conversation state of the latest cluster build, polled while it runs."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import streamlit as st

from components import html_table
from components.text import md
from memory_core.errors import IngestError, MnemoscopeError
from memory_core.models import Source
from memory_core.services import ImportResult, MemoryServices
from memory_core.services.importing import ALREADY_IMPORTED
from memory_core.summaries import BuildState, ImportPreview, PreviewConversation

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "sample_data"
FORMATS = ("detect", "locomo", "longmemeval", "realtalk", "beam", "chatgpt", "claude", "json", "jsonl",
           "csv", "text")
UPLOAD_TYPES = ["json", "jsonl", "csv", "txt", "md"]
DEFAULT_SAMPLE = "sample_conversation.json"


def digest(source: Source) -> str:
    """What a cached preview is keyed by: an upload's content, a file's path and time."""
    if source.data is not None:
        return hashlib.sha256(source.data).hexdigest()
    return f"{source.file}:{source.file.stat().st_mtime_ns}"


def sample_files() -> list[Path]:
    if not SAMPLE_DIR.is_dir():
        return []
    return sorted(p for p in SAMPLE_DIR.iterdir() if p.is_file() and not p.name.startswith("."))


def choose_source() -> Source | None:
    kind = st.radio("Source", ["Sample data", "Upload a file"], horizontal=True)
    if kind == "Sample data":
        files = {p.name: p for p in sample_files()}  # the widget holds the name, a plain string
        if not files:
            return None
        names = list(files)
        first = names.index(DEFAULT_SAMPLE) if DEFAULT_SAMPLE in files else 0
        name = st.selectbox("Sample file", names, index=first)
        return Source.of(files[name])
    upload = st.file_uploader("Conversation file", type=UPLOAD_TYPES)
    return Source.upload(upload.name, upload.getvalue()) if upload is not None else None


@dataclass(frozen=True)
class Preview:
    """A file's preview, or the one-line error that reading it gave."""
    info: ImportPreview | None
    error: str | None = None


@st.cache_data(show_spinner="Reading the file…", max_entries=16)
def _preview(_svc: MemoryServices, _source: Source, digest: str, fmt: str | None) -> Preview:
    try:
        return Preview(_svc.imports.preview(_source, fmt=fmt))
    except MnemoscopeError as exc:
        return Preview(None, str(exc))


def preview(svc: MemoryServices, source: Source, fmt: str | None) -> Preview:
    """Detected format and a preview (cached per file content); an importer error as one line.

    Whether each conversation is already imported is read from the store on every call: the
    cache is keyed by the file only, and the home changes (an import, another home)."""
    found = _preview(svc, source, digest(source), fmt)
    if found.info is None:
        return found
    return Preview(found.info.with_known(svc.imports.conversation_ids()))


PREVIEW_COLUMNS = ("conversation", "already imported", "speakers", "sessions", "turns", "questions")


def preview_rows(convs: Sequence[PreviewConversation]) -> list[dict[str, html_table.Cell]]:
    """One row per conversation found in the file (a small static table, not a data grid)."""
    return [{"conversation": c.id, "already imported": "yes" if c.exists else "no",
             "speakers": ", ".join(c.speakers), "sessions": c.sessions,
             "turns": c.turns, "questions": c.questions} for c in convs]


def show_preview(info: ImportPreview) -> None:
    st.caption(f"Detected format: **{md(info.format or 'unknown')}**")
    for warning in info.warnings:
        st.warning(md(warning))
    convs = info.conversations
    html_table.render(PREVIEW_COLUMNS, preview_rows(convs), empty="No conversation found in the file.")
    if convs and convs[0].first_turns:  # drawn only while open (a lazy expander)
        with st.expander(f"First turns of {md(convs[0].id)}", key="preview_first_turns",
                         on_change="rerun") as box:
            if box.open:
                st.dataframe(pd.DataFrame([t.to_json() for t in convs[0].first_turns]), hide_index=True)


REPLACE_LABEL = "Replace conversations that are already imported"


def import_source(svc: MemoryServices, source: Source, fmt: str | None, replace: bool) -> ImportResult:
    """Import ``source``; project errors propagate (the page shows them as one line). A
    conversation already imported is refused naming the page's checkbox (``REPLACE_LABEL``),
    not the command line's ``--replace``."""
    try:
        return svc.imports.import_file(source, fmt=fmt, replace=replace)
    except IngestError as exc:
        if not exc.what.startswith(ALREADY_IMPORTED):
            raise
        raise IngestError(exc.file, exc.where, f"{ALREADY_IMPORTED}; tick “{REPLACE_LABEL}” above the "
                                               "Import button to replace it") from None


# ---------------------------------------------------------------------------- cluster builds
POLL_SECONDS = 2.0
STALE_AFTER = timedelta(minutes=30)  # a queued/building row this old: its builder is gone
STATE_LABELS = {"queued": "queued", "building": "building", "done": "done", "failed": "failed"}


def build_rows(rows: Sequence[BuildState]) -> pd.DataFrame:
    """The build-status rows as the table the page shows (one line per conversation)."""
    return pd.DataFrame([{
        "conversation": r.conv_id,
        "state": STATE_LABELS.get(r.state, r.state),
        "stage": r.stage,
        "error": r.error,
        "worker": r.worker,
        "updated": r.updated_at,
    } for r in rows], columns=["conversation", "state", "stage", "error", "worker", "updated"])


def build_counts(rows: Sequence[BuildState]) -> dict[str, int]:
    counts = dict.fromkeys(STATE_LABELS, 0)
    for r in rows:
        counts[r.state] = counts.get(r.state, 0) + 1
    return counts


def _unfinished(rows: Sequence[BuildState]) -> tuple[int, int]:
    """(rows still queued or building that were updated lately, those that were not)."""
    now = datetime.now(UTC).replace(tzinfo=None)  # the store's timestamps are naive UTC
    waiting = [r for r in rows if r.state in ("queued", "building")]
    live = sum(1 for r in waiting if r.updated_at is not None and now - r.updated_at < STALE_AFTER)
    return live, len(waiting) - live


def cluster_progress(svc: MemoryServices) -> None:
    """The latest cluster build run (``build --workers`` / ``build-cluster``), one row per
    conversation, read from the store's build-status table; re-read every ``POLL_SECONDS``
    while some conversation is still queued or building (then the page reruns once, which
    stops the polling). Rows not updated for ``STALE_AFTER`` are not waited for: a warning
    says their builder has stopped."""
    rows = svc.builds.build_status()
    if not rows:
        return
    active = _unfinished(rows)[0] > 0

    def show() -> None:
        current = svc.builds.build_status()
        counts = build_counts(current)
        still, stale = _unfinished(current)
        st.subheader("Cluster build")
        st.caption(f"Run {md(current[0].run_id if current else '')}: "
                   f"{counts['done']} done, {counts['building']} building, {counts['queued']} queued, "
                   f"{counts['failed']} failed" + (" (updating)" if still else ""))
        if stale:
            st.warning(f"{stale} conversation(s) had no update for {STALE_AFTER.seconds // 60} minutes: "
                       "the process building them has probably stopped; build them again.")
        st.dataframe(build_rows(current), hide_index=True)
        for r in current:
            if r.state == "failed":
                st.error(md(f"{r.conv_id}: {r.error}"))
        if active and not still:
            st.rerun()  # the run ended: one full rerun stops the polling

    st.fragment(run_every=POLL_SECONDS if active else None)(show)()
