"""Watching a build: the transcript fills in session by session, episode bands appear with
their themes, records appear beside their evidence turns, counters and a progress bar move.

``watch(events)`` consumes the typed progress events of ``Services.build`` and redraws small
placeholders per event — a live view, not a spinner followed by a result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components.text import md
from components.transcript import transcript_html
from memory_core.models import Episode, Record, Turn
from memory_core.progress import (
    BuildDone,
    BuildEvent,
    BuildStarted,
    EntitiesMerged,
    EpisodeFormed,
    GraphUpdated,
    RecordsExtracted,
    SessionDone,
    SessionSkipped,
    SessionStarted,
)


@dataclass
class _SessionView:
    turns: list[Turn]
    episodes: list[Episode] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    slot: DeltaGenerator | None = None


@dataclass
class BuildTally:
    """Plain counters of what the build has produced so far (also the summary it returns)."""

    sessions_total: int = 0
    sessions_pending: int = 0
    sessions_done: int = 0
    sessions_skipped: int = 0
    turns_pending: int = 0
    turns_done: int = 0
    episodes: int = 0
    records: int = 0
    events: int = 0
    entities: int = 0
    merges: int = 0
    edges: int = 0
    links: int = 0
    backend: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    def progress(self) -> float:
        if self.turns_pending <= 0:
            return 1.0 if self.stats else 0.0
        return min(1.0, self.turns_done / self.turns_pending)


def _counters(slot: DeltaGenerator, tally: BuildTally) -> None:
    with slot.container():
        cols = st.columns(6)
        cols[0].metric("Sessions", f"{tally.sessions_done + tally.sessions_skipped}/{tally.sessions_total}")
        cols[1].metric("Turns read", tally.turns_done)
        cols[2].metric("Episodes", tally.episodes)
        cols[3].metric("Records", tally.records)
        cols[4].metric("Event frames", tally.events)
        cols[5].metric("Entities", tally.entities)


def _draw_session(view: _SessionView) -> None:
    if view.slot is not None:
        view.slot.html(transcript_html(view.turns, view.episodes, view.records,
                                       pending_note="finding episode boundaries…"))


def watch(events: Iterable[BuildEvent], *, show_transcript: bool = True) -> BuildTally:
    """Draw a build live from its event stream; returns the final tally."""
    tally = BuildTally()
    bar = st.progress(0.0, text="Starting the build…")
    counter_slot = st.empty()
    status = st.status("Building memory…", expanded=False)
    area = st.container()
    sessions: dict[int, _SessionView] = {}
    episode_session: dict[str, int] = {}
    view: _SessionView | None
    _counters(counter_slot, tally)
    for event in events:
        status.write(md(str(event)))
        match event:
            case BuildStarted():
                tally.sessions_total = event.sessions_total
                tally.sessions_pending = event.sessions_pending
                tally.turns_pending = event.turns_pending
                tally.backend = event.backend
            case SessionSkipped():
                tally.sessions_skipped += 1
            case SessionStarted():
                view = _SessionView(turns=list(event.turns))
                if show_transcript:
                    view.slot = area.empty()
                sessions[event.session] = view
                _draw_session(view)
            case EpisodeFormed():
                ep = event.episode
                view = sessions.get(ep.session)
                episode_session[ep.id] = ep.session
                tally.episodes += 1
                if view is not None:
                    view.episodes.append(ep)
                    _draw_session(view)
            case RecordsExtracted():
                tally.records += len(event.records)
                tally.events += len(event.events)
                session = episode_session.get(event.episode_id)
                view = sessions.get(session) if session is not None else None
                if view is not None:
                    view.records.extend(event.records)
                    done = next((e for e in view.episodes if e.id == event.episode_id), None)
                    tally.turns_done += len(done.turn_ids) if done is not None else 0
                    _draw_session(view)
            case SessionDone():
                tally.sessions_done += 1
            case EntitiesMerged():
                tally.entities = len(event.entities)
                tally.merges = len(event.merges)
            case GraphUpdated():
                tally.entities, tally.edges = event.entities, event.edges
                tally.links = event.links
            case BuildDone():
                tally.stats = dict(event.stats)
                tally.turns_done = max(tally.turns_done, tally.turns_pending)
        bar.progress(tally.progress(), text=_bar_text(tally, event))
        _counters(counter_slot, tally)
    status.update(label="Build finished", state="complete")
    return tally


def _bar_text(tally: BuildTally, event: BuildEvent) -> str:
    if isinstance(event, BuildDone):
        return "Done"
    if isinstance(event, EntitiesMerged | GraphUpdated):
        return "Merging entities and drawing the graphs…"
    return f"Reading turns: {tally.turns_done}/{tally.turns_pending}"


def summary(tally: BuildTally) -> None:
    s = tally.stats
    st.success(
        f"Built {s.get('sessions_built', tally.sessions_done)} session(s) with the "
        f"{md(tally.backend)} backend in {float(s.get('seconds', 0.0)):.1f} s: {tally.episodes} episodes, "
        f"{tally.records} records, {tally.events} event frames, {tally.entities} entities, "
        f"{tally.edges} graph edges."
    )
