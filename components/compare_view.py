"""What differs between strategies asked the same question: the turns only one strategy put in
its buffer, whether the answers differ, and — when the question is a benchmark question with a
gold answer and evidence — which answer is right and which buffer holds the gold evidence.

``differences`` is plain (tested on traces); ``render`` draws it above the side-by-side columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from components.text import esc, md, shorten
from memory_core.models import BufferTurn, Trace
from memory_core.services.evaluating import WRONG_F1, normalise_answer, token_f1


@dataclass
class Difference:
    """One strategy's trace against the others."""

    strategy: str
    answer: str
    same_answer_as: list[str] = field(default_factory=list)  # strategies whose answer reads the same
    only_here: list[str] = field(default_factory=list)  # buffer turns no other strategy found
    gold_found: int | None = None  # gold evidence turns in the buffer (None: no gold evidence)
    answer_f1: float | None = None  # token F1 with the gold answer (None: no gold answer)

    @property
    def right(self) -> bool | None:
        return None if self.answer_f1 is None else self.answer_f1 >= WRONG_F1


def differences(traces: Sequence[Trace], gold_answer: str | None = None,
                gold_evidence: Sequence[str] = ()) -> list[Difference]:
    buffers = [[b.turn_id for b in t.buffer] for t in traces]
    keys = [" ".join(normalise_answer(t.answer.text)) for t in traces]
    out = []
    for i, t in enumerate(traces):
        others = set().union(*(set(b) for j, b in enumerate(buffers) if j != i)) if len(traces) > 1 else set()
        d = Difference(strategy=t.strategy, answer=t.answer.text,
                       same_answer_as=[traces[j].strategy for j in range(len(traces))
                                       if j != i and keys[j] == keys[i]],
                       only_here=[x for x in buffers[i] if x not in others] if len(traces) > 1 else [])
        if gold_evidence:
            d.gold_found = sum(1 for x in gold_evidence if x in set(buffers[i]))
        if gold_answer not in (None, ""):
            d.answer_f1 = round(token_f1(t.answer.text, str(gold_answer)), 3)
        out.append(d)
    return out


def verdict(diffs: Sequence[Difference]) -> str:
    """One sentence: do the answers differ, and which are right when gold is known."""
    groups = {" ".join(normalise_answer(d.answer)) for d in diffs}
    text = ("All strategies gave the same answer." if len(groups) <= 1
            else f"The answers differ: {len(groups)} different answers from {len(diffs)} strategies.")
    judged = [d for d in diffs if d.right is not None]
    if judged:
        right = [d.strategy for d in judged if d.right]
        text += (f" Right by the gold answer: {', '.join(right)}." if right
                 else " None matches the gold answer.")
    return text


def render(traces: Sequence[Trace], gold_answer: str | None = None,
           gold_evidence: Sequence[str] = ()) -> list[Difference]:
    """The verdict, a table of what differs, and each strategy's own turns (with their text)."""
    if len(traces) < 2:
        return differences(traces, gold_answer, gold_evidence)
    diffs = differences(traces, gold_answer, gold_evidence)
    st.markdown(f"**{md(verdict(diffs))}**")
    rows: list[dict[str, Any]] = []
    for d, t in zip(diffs, traces, strict=True):
        row: dict[str, Any] = {"strategy": d.strategy, "answer": d.answer,
                               "same answer as": ", ".join(d.same_answer_as) or "none",
                               "turns only this one found": len(d.only_here), "buffer turns": len(t.buffer),
                               "tokens": t.buffer_tokens}
        if d.gold_found is not None:
            row["gold evidence in buffer"] = f"{d.gold_found}/{len(gold_evidence)}"
        if d.answer_f1 is not None:
            row["answer F1 vs gold"] = d.answer_f1
            row["right?"] = "right" if d.right else "wrong"
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config={
        "turns only this one found": st.column_config.NumberColumn(
            help="buffer turns no other compared strategy put in its buffer"),
        "right?": st.column_config.TextColumn(help=f"right when the answer's token F1 with the gold "
                                                   f"answer is at least {WRONG_F1:.2f}")})
    for d, t in zip(diffs, traces, strict=True):
        if not d.only_here:
            continue
        by_id = {b.turn_id: b for b in t.buffer}
        with st.expander(f"Turns only {d.strategy} found ({len(d.only_here)})"):
            st.html(only_here_html(d.only_here, by_id, set(gold_evidence)))
    return diffs


def only_here_html(turn_ids: Sequence[str], by_id: Mapping[str, BufferTurn], gold: set[str]) -> str:
    """The turns only one strategy found: id, speaker and text, each escaped; gold evidence starred."""
    return "".join(
        f'<div class="mn-ep-head">{"★ gold evidence · " if x in gold else ""}<b>{esc(x)}</b> '
        f'{esc(by_id[x].speaker)}: {esc(shorten(by_id[x].text, 200))}</div>'
        for x in turn_ids)
