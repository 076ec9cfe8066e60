"""A question's trace drawn as a chain the user can walk:

    answer (+ clickable citations) → plan → each requirement → the records it matched
    (how, with score components) → the episodes chosen (why) → the buffer turns with the
    matched words highlighted.

Citations are in-page links to the buffer turn (``#turn-D3-4``); the targeted turn is outlined.
A requirement's matches and the chosen episodes are light HTML tables (``html_table``: every
cell escaped, long cells wrap), so they fit the main column of a 1024 px window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any

import streamlit as st

from components import buffer_view, data, html_table, links, plain_words, support_view, transcript
from components.text import anchor_id, esc, md, shorten
from memory_core.models import Episode, Record, Requirement, Trace
from memory_core.services import MemoryServices


def answer_html(trace: Trace) -> str:
    cites = "".join(
        f'<a class="mn-cite" href="#{anchor_id(tid)}" target="_self">{esc(tid)}</a>'
        for tid in trace.answer.cited_turn_ids
    )
    if trace.answer.unmentioned:  # the question names something no retrieved turn says
        names = ", ".join(f"“{esc(n)}”" for n in trace.answer.unmentioned)
        support = f'<div class="mn-ep-head">no retrieved turn mentions {names}: the question may rest on a ' \
                  'premise the conversation does not hold</div>'
    elif support_view.is_guess(trace):  # the words are in the cited turn; whether they answer is not shown
        support = '<div class="mn-ep-head">a guess: not shown to answer the question</div>'
    elif not trace.answer.supported:
        support = '<div class="mn-ep-head">not supported by the evidence</div>'
    else:
        support = ""
    cite_line = f'<div class="mn-ep-head">cited turns: {cites}</div>' if cites else ""
    updates = ""
    if trace.answer.updates:  # "D9:5 (3 May 2023)": the earlier statement this answer supersedes
        tid, _, when = trace.answer.updates.partition(" ")
        link = f'<a class="mn-cite" href="#{anchor_id(tid)}" target="_self">{esc(tid)}</a>'
        updates = f'<div class="mn-ep-head">the latest statement; it updates {link} {esc(when)}</div>'
    return f'<div class="mn-answer">{esc(trace.answer.text)}{cite_line}{updates}{support}</div>'


def as_of_time(day: date | None) -> datetime | None:
    """The "ask as of" day as the query layer takes it (the start of that day, as ``ask --as-of``)."""
    return None if day is None else datetime.combine(day, time())


def asked_at(trace: Trace) -> datetime | None:
    """When the trace's question was asked as of (None: the conversation's last session)."""
    value = trace.details.get("asked_at")
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def asked_at_text(trace: Trace) -> str:
    value = trace.details.get("asked_at")
    return (f"Asked as of {value}" if value else "Asked as of the conversation's last session") + (
        ": relative dates in the question ('last week') count back from there.")


def answer(trace: Trace) -> None:
    st.html(answer_html(trace))
    support_view.badge(trace)
    cols = st.columns(3)
    budget = f" / {trace.budget_tokens}" if trace.budget_tokens else ""
    cols[0].metric("Buffer tokens", f"{trace.buffer_tokens}{budget}",
                   help="tokens of the evidence turns handed to the answerer (/ the budget, when set)")
    cols[1].metric("Buffer turns", len(trace.buffer), help="turns of the conversation in the evidence buffer")
    cols[2].metric("Time", f"{trace.timings.get('total', 0.0):.2f} s",
                   help="time spent planning, retrieving and answering; loading the conversation's index "
                        "the first time and drawing the page are not counted")
    # the strategy's name is text, not a figure: a caption, never cut short like a metric on a
    # narrow screen
    st.caption(f"Evidence chosen by the **{md(trace.strategy)}** retrieval strategy. "
               f"{md(asked_at_text(trace))}")


def plan(trace: Trace) -> None:
    p = trace.plan
    facts = [("reasoning", p.reasoning_type.value), ("scope", p.scope.value), ("hops", p.hops),
             ("answer target", p.answer_target), ("time", p.time_condition),
             ("keywords", ", ".join(p.keywords))]
    st.markdown(" · ".join(f"**{k}**: {md(v)}" for k, v in facts if v not in (None, "")))


def requirement_label(i: int, r: Requirement, answer_target: str = "value") -> str:
    """A requirement as a sentence ("R1 · Looking for: where Maya takes place")."""
    return shorten(plain_words.requirement_sentence(i, r, answer_target), 100)


# Every part of a match's score, in words (the "components" of a match and the boosts of fusion).
SCORE_PARTS: dict[str, str] = {
    "fused": "the turn's overall evidence score: the weighted sum of the channels below (lexical, dense, "
             "records, structured) plus the speaker and date boosts, smoothed with its neighbours; "
             "higher is better, and it can exceed 1",
    "support": "how much of this requirement the turn covers (its entity, property and value words, "
               "or its meaning), from 0 (nothing) to 1 (all of it)",
    "lexical": "word overlap (BM25) of the question's terms with the text, scaled 0-1 over the "
               "conversation",
    "dense": "closeness in meaning (cosine of the embeddings) of the question and the text; on a "
             "structured match, the raw cosine with the record",
    "structured": "how well a record matches a requirement of the plan: entity, property and value "
                  "compared one by one",
    "entity": "how well the record's entity (or the speaker it came from) matches the requirement's "
              "entity, 0-1",
    "raw": "the channel's score before scaling (BM25 points or cosine)",
    "normalised": "the channel's score scaled 0-1 over the whole conversation (1 = the best turn or record)",
    "on": "the match is on a record (its evidence turns inherit the score)",
    "semantic": "closeness in meaning of the question and the record (graph strategies)",
    "importance": "how central the record is in the memory graph",
    "recency": "how recent the record's episode is, as of when the question is asked",
    "seed": "the fused score of the turn that seeded this event frame",
    "speaker boost": "added to the fused score of turns said by the one person the question is about",
    "date boost": "added to the fused score of turns in sessions near a date the question names",
}
_HOW = {"structured": "a record matched a requirement of the plan", "lexical": "matched by words",
        "dense": "matched by meaning", "graph": "reached through the memory graph",
        "event": "an event frame citing a seed turn"}
# The requirements table (``walk``) and the episodes table: light HTML tables whose long cells
# wrap, so they fit the main column of a 1024 px window with no sideways scroll (the data grid
# of ``st.dataframe`` sized its columns to their longest cell); the headers' tooltips say what
# each column means.
MATCH_COLUMNS = ("how", "score", "components", "record", "turn", "episode")
MATCH_HINTS = {
    "how": "; ".join(f"{k}: {v}" for k, v in _HOW.items()),
    "score": "the match's score: " + "; ".join(f"{k} = {SCORE_PARTS[k]}" for k in ("support", "normalised")),
    "components": "the parts of the score; 'What the scores mean' below says each in words",
}
EPISODE_HINTS = {
    "score": "the best fused score of the episode's chosen turns: " + SCORE_PARTS["fused"],
    "covers": "requirements some chosen turn of the episode supports well",
}


def score_legend(trace: Trace) -> None:
    """The score parts this trace uses, said in words, and the boosts fusion applied."""
    used = {k for m in trace.matches for k in m.components} | {"fused"}
    details = trace.details
    lines = [f"- **{k}** — {v}" for k, v in SCORE_PARTS.items() if k in used]
    speaker = details.get("focus_speaker")
    lines.append(f"- **speaker boost** — {SCORE_PARTS['speaker boost']}: "
                 + (f"applied to {md(speaker)}'s turns" if speaker else "not applied (no one person)"))
    ranges = details.get("date_ranges") or []
    said = "; ".join(f"{md(r[2])} → {r[0]} to {r[1]}" for r in ranges if len(r) >= 3)
    lines.append(f"- **date boost** — {SCORE_PARTS['date boost']}: "
                 + (f"applied ({said})" if said else "not applied (the question names no date)"))
    with st.expander("What the scores mean"):
        st.markdown("\n".join(lines))


def requirement_names(text: str) -> str:
    """The query layer's 0-based ``r0, r1`` as the page numbers requirements: ``R1, R2``."""
    return re.sub(r"\br(\d+)\b", lambda m: f"R{int(m.group(1)) + 1}", text)


def match_rows(trace: Trace, requirement: int, records: dict[str, Record],
               labels: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for m in trace.matches:
        if m.requirement != requirement:
            continue
        rec = records.get(m.record_id) if m.record_id else None
        rows.append({
            "how": m.kind.value,
            "score": round(m.score, 3),
            # a part's name and figure on one line: the cell wraps between parts only
            "components": ", ".join(f"{k}\u00a0{v:.2f}" for k, v in sorted(m.components.items())),
            "record": f"{rec.entity} · {rec.property} = {rec.value}" if rec else (m.record_id or ""),
            "turn": m.turn_id or "",
            "episode": labels.get(m.episode_id or "", m.episode_id or ""),
            "record_id": m.record_id or "",
        })
    return sorted(rows, key=lambda r: -r["score"])


def walk(svc: MemoryServices, conv: str, trace: Trace, labels: dict[str, str]) -> None:
    """Requirement → matched records → a record's episode with its evidence highlighted."""
    reqs = list(trace.plan.requirements)
    options = list(range(len(reqs))) + ([-1] if any(m.requirement == -1 for m in trace.matches) else [])
    if not options:
        st.caption("The plan has no requirement.")
        return
    ids = [m.record_id for m in trace.matches if m.record_id]
    records = {r.id: r for r in data.records_by_ids(svc, list(dict.fromkeys(ids)))}
    chosen = st.selectbox("Requirement", options, key=f"walk_req:{trace.id}", format_func=lambda i: (
        requirement_label(i, reqs[i], trace.plan.answer_target) if i >= 0
        else "Matches for the question as a whole"))
    rows = match_rows(trace, chosen, records, labels)
    if not rows:
        st.caption("Nothing matched this requirement.")
        return
    html_table.render(MATCH_COLUMNS, rows, hints=MATCH_HINTS, long=("record",), max_height=460)
    rec_ids = [r["record_id"] for r in rows if r["record_id"] in records]
    if not rec_ids:
        return
    rid = st.selectbox("Follow a matched record to its evidence", list(dict.fromkeys(rec_ids)),
                       key=f"walk_rec:{trace.id}:{chosen}", format_func=lambda i: shorten(
                           f"{records[i].entity} · {records[i].property} = {records[i].value}", 90))
    rec = records[rid]
    episodes = {e.id: e for e in data.episodes(svc, conv)}
    ep = episodes.get(rec.episode_id)
    in_buffer = {b.turn_id for b in trace.buffer}
    links.show(f"{links.record_link(conv, rec.id)} → episode "
               f"{links.episode_link(conv, rec.episode_id, labels.get(rec.episode_id, rec.episode_id))}; "
               f"evidence turns {esc(', '.join(rec.evidence_turn_ids))} "
               f"({'in' if set(rec.evidence_turn_ids) & in_buffer else 'not in'} the buffer)")
    if ep is not None:
        transcript.render(data.turns(svc, conv, ep.turn_ids), [ep], [rec], evidence=rec.evidence_turn_ids,
                          anchor_prefix="rec")


def episodes_chosen(trace: Trace, labels: dict[str, str], requirements: Sequence[Requirement]) -> None:
    if not trace.episodes:
        st.caption("No episode was chosen (this strategy ranks turns directly).")
        return
    html_table.render(("episode", "score", "why", "covers"), [{
        "episode": labels.get(c.episode_id, c.episode_id), "score": round(c.score, 3),
        "why": requirement_names(c.reason), "covers": ", ".join(f"R{i + 1}" for i in c.covers)}
        for c in trace.episodes], hints=EPISODE_HINTS, long=("why",))


def buffer(trace: Trace, episodes: Sequence[Episode] = ()) -> None:
    """The evidence buffer: highlighted matched words, cited turns outlined, anchors for citations."""
    if not trace.buffer:
        st.caption("The buffer is empty.")
        return
    marks = {b.turn_id: [(h.start, h.end, h.label) for h in b.highlights] for b in trace.buffer}
    used = {b.episode_id for b in trace.buffer}
    shown = [e for e in episodes if e.id in used]
    transcript.render(list(trace.buffer), shown, highlights=marks, cited=trace.answer.cited_turn_ids)


def timings(trace: Trace) -> None:
    if trace.timings:
        st.caption(" · ".join(f"{md(k)} {v * 1000:.0f} ms" for k, v in trace.timings.items()))


def full(svc: MemoryServices, conv: str, trace: Trace, episodes: Sequence[Episode]) -> None:
    labels = data.episode_labels(episodes)
    answer(trace)
    st.subheader("Plan")
    plan(trace)
    st.subheader("Requirements and what they matched")
    walk(svc, conv, trace, labels)
    score_legend(trace)
    st.subheader("Episodes chosen")
    episodes_chosen(trace, labels, trace.plan.requirements)
    st.subheader("Evidence buffer")
    timings(trace)
    buffer_view.buffer(svc, trace, episodes)


def comparison(traces: Sequence[Trace], titles: Sequence[str] | None = None) -> None:
    """Traces side by side (strategies on one question, or before/after a correction)."""
    cols = st.columns(max(1, len(traces)))
    for i, (col, t) in enumerate(zip(cols, traces, strict=False)):
        with col:
            title = titles[i] if titles and i < len(titles) else t.strategy
            st.markdown(f"**{md(title)}** · {md(t.strategy)} · {t.created_at:%Y-%m-%d %H:%M}")
            st.html(answer_html(t))
            st.caption(f"{t.buffer_tokens} tokens · {len(t.buffer)} turns · {len(t.episodes)} episodes · "
                       f"{len({m.record_id for m in t.matches if m.record_id})} records matched · "
                       f"{sum(t.timings.values()):.2f} s")
            st.caption("plan: " + md(f"{t.plan.reasoning_type.value}, "
                                     f"{len(t.plan.requirements)} requirements: ")
                       + md("; ".join(requirement_label(k, r, t.plan.answer_target)
                                 for k, r in enumerate(t.plan.requirements))))
            if len(traces) > 1:  # what only this one found first; the shared turns counted
                others = {b.turn_id for j, o in enumerate(traces) if j != i for b in o.buffer}
                own = [b.turn_id for b in t.buffer if b.turn_id not in others]
                st.caption(f"only here ({len(own)}): " + (md(", ".join(own[:40])) or "none")
                           + f" · shared with another strategy: {len(t.buffer) - len(own)} turns")
            else:
                st.caption("buffer: " + md(", ".join(b.turn_id for b in t.buffer[:40])))
