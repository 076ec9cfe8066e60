"""The transcript drawn as HTML: session headers, episode bands, record chips, highlights.

Everything here is built from escaped pieces (``components.text.esc``); the only literal
markup is our own tags and class names. ``render`` passes the result to ``st.html``, which
sanitises it once more (DOMPurify) and never runs scripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import streamlit as st

from components import links
from components.state import current_conv
from components.text import anchor_id, esc
from components.theme import kind_colors
from memory_core.models import BufferTurn, Episode, Record, Turn

Span = tuple[int, int, str]  # start, end, label (character offsets into the turn text)


@dataclass(frozen=True)
class TurnView:
    """What the transcript needs from a ``Turn`` or a ``BufferTurn``."""

    id: str
    speaker: str
    text: str
    session: int
    time: datetime | None = None
    caption: str | None = None

    @classmethod
    def of(cls, turn: Turn | BufferTurn) -> TurnView:
        tid = getattr(turn, "id", None) or getattr(turn, "turn_id", "")
        return cls(
            id=str(tid), speaker=str(turn.speaker), text=str(turn.text or ""), session=int(turn.session),
            time=getattr(turn, "session_time", None), caption=getattr(turn, "image_caption", None),
        )


def highlight_html(text: str, spans: Iterable[Span] = ()) -> str:
    """Escaped ``text`` with ``<mark>`` around the given spans (clamped, overlaps merged)."""
    clean: list[tuple[int, int, str]] = []
    for start, end, label in sorted(spans):
        start, end = max(0, int(start)), min(len(text), int(end))
        if end <= start:
            continue
        if clean and start <= clean[-1][1]:
            prev = clean[-1]
            clean[-1] = (prev[0], max(prev[1], end), prev[2] or label)
        else:
            clean.append((start, end, label))
    out: list[str] = []
    pos = 0
    for start, end, label in clean:
        out.append(esc(text[pos:start]))
        title = f' title="{esc(label)}"' if label else ""
        out.append(f"<mark{title}>{esc(text[start:end])}</mark>")
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


def record_chip(record: Record, conv: str | None = None) -> str:
    """A record beside its evidence turn; with ``conv`` a link that opens the record."""
    modality = getattr(record, "modality", None)
    mod = f" [{esc(getattr(modality, 'value', modality))}]" if modality and str(
        getattr(modality, "value", modality)) != "observed" else ""
    status = str(getattr(getattr(record, "status", ""), "value", getattr(record, "status", "")))
    cls = "mn-chip mn-wrong" if status in ("wrong", "deleted") else "mn-chip"
    title = esc(f"{record.id} · confidence {getattr(record, 'confidence', 0):.2f}")
    body = f"{esc(record.entity)} · {esc(record.property)} = {esc(record.value)}{mod}"
    if conv:
        return f'<a class="{cls}" href="{esc(links.href_record(conv, record.id))}" title="{title}">{body}</a>'
    return f'<span class="{cls}" title="{title}">{body}</span>'


def turn_html(turn: TurnView, *, spans: Sequence[Span] = (), records: Sequence[Record] = (),
              evidence: bool = False, cited: bool = False, max_chips: int = 6,
              anchor_prefix: str = "turn", conv: str | None = None) -> str:
    classes = ["mn-turn"]
    if evidence:
        classes.append("mn-evidence")
    if cited:
        classes.append("mn-cited")
    speaker = links.entity_link(conv, turn.speaker) if conv else esc(turn.speaker)
    caption = (f' <span class="mn-caption">[image: {esc(turn.caption)}]</span>' if turn.caption else "")
    chips = "".join(record_chip(r, conv) for r in records[:max_chips])
    if len(records) > max_chips:
        chips += f'<span class="mn-chip">+{len(records) - max_chips} more</span>'
    return (
        f'<div class="{" ".join(classes)}" id="{anchor_id(turn.id, anchor_prefix)}">'
        f'<div><span class="mn-tid">{esc(turn.id)}</span>'
        f'<span class="mn-speaker">{speaker}</span>: '
        f"{highlight_html(turn.text, spans)}{caption}</div>"
        f'<div class="mn-recs">{chips}</div></div>'
    )


def episode_kind(episode: Episode) -> str:
    return str(getattr(episode.theme_type, "value", episode.theme_type))


def episode_head(episode: Episode) -> str:
    theme = ", ".join(str(t) for t in episode.theme[:5]) or "—"
    kind = episode_kind(episode)
    color, _ = kind_colors(kind)  # the kind's colour, as the timeline's legend shows it
    reason = episode.boundary_reason or "start of session"
    return (
        f'<div class="mn-ep-head"><span class="mn-tag" style="background:{color}">{esc(kind)}</span>'
        f"<b>{esc(episode.id)}</b> · theme: {esc(theme)} · boundary: {esc(reason)}"
        f" ({float(episode.boundary_score):.2f})</div>"
    )


def _session_head(turn: TurnView) -> str:
    when = f" · {turn.time:%Y-%m-%d %H:%M}" if turn.time else ""
    return f'<div class="mn-session-head">Session {turn.session}{esc(when)}</div>'


def records_by_first_evidence(records: Iterable[Record], turn_ids: Iterable[str]) -> dict[str, list[Record]]:
    """Place each record beside the first of its evidence turns that is on screen."""
    shown = set(turn_ids)
    out: dict[str, list[Record]] = {}
    for r in records:
        for tid in r.evidence_turn_ids:
            if tid in shown:
                out.setdefault(tid, []).append(r)
                break
    return out


def transcript_html(
    turns: Sequence[Turn | BufferTurn | TurnView],
    episodes: Sequence[Episode] = (),
    records: Iterable[Record] = (),
    *,
    highlights: Mapping[str, Sequence[Span]] | None = None,
    evidence: Iterable[str] = (),
    cited: Iterable[str] = (),
    anchor_prefix: str = "turn",
    pending_note: str | None = None,
    conv: str | None = None,
) -> str:
    """The transcript of ``turns`` with episode bands.

    With ``conv``, speakers link to their records and record chips open their record.

    Turns in none of ``episodes`` are drawn plainly, or — with ``pending_note`` (a live build) —
    in a dashed band carrying that note.
    """
    views = [t if isinstance(t, TurnView) else TurnView.of(t) for t in turns]
    by_turn_episode: dict[str, Episode] = {}
    for ep in episodes:
        for tid in ep.turn_ids:
            by_turn_episode[tid] = ep
    chips = records_by_first_evidence(records, (v.id for v in views))
    marks = highlights or {}
    evidence_set, cited_set = set(evidence), set(cited)

    out: list[str] = ['<div class="mn-transcript">']
    session: int | None = None
    open_group: str | None = None  # episode id, "" for pending turns, None when closed
    for view in views:
        band = by_turn_episode.get(view.id)
        group = band.id if band is not None else ""
        if view.session != session:
            if open_group is not None:
                out.append("</div>")
                open_group = None
            out.append(_session_head(view))
            session = view.session
        if group != open_group:
            if open_group is not None:
                out.append("</div>")
            if band is not None:
                color, tint = kind_colors(episode_kind(band))
                out.append(f'<div class="mn-episode" style="border-left-color:{color};background:{tint}">')
                out.append(episode_head(band))
            elif pending_note:
                out.append(f'<div class="mn-pending"><div class="mn-ep-head">{esc(pending_note)}</div>')
            else:
                out.append('<div class="mn-plain">')
            open_group = group
        out.append(turn_html(view, spans=marks.get(view.id, ()), records=chips.get(view.id, []),
                             evidence=view.id in evidence_set, cited=view.id in cited_set,
                             anchor_prefix=anchor_prefix, conv=conv))
    if open_group is not None:
        out.append("</div>")
    out.append("</div>")
    return "".join(out)


def render(turns: Sequence[Turn | BufferTurn | TurnView], episodes: Sequence[Episode] = (),
           records: Iterable[Record] = (), *,
           highlights: Mapping[str, Sequence[Span]] | None = None, evidence: Iterable[str] = (),
           cited: Iterable[str] = (), anchor_prefix: str = "turn") -> None:
    """Draw a transcript (see ``transcript_html``) of the open conversation; nothing to draw
    shows a short note."""
    if not turns:
        st.caption("No turns to show.")
        return
    st.html(transcript_html(turns, episodes, records, highlights=highlights, evidence=evidence, cited=cited,
                            anchor_prefix=anchor_prefix, conv=current_conv()))
