"""LongMemEval evaluation as plain functions: one haystack = one conversation = one question.

    read_questions(path, ...) -> (conversation, LmeQuestion) pairs, streamed from the file
    evaluate(questions, ask, on_row=None) -> rows (the ``eval locomo`` row fields, plus extras)
    summarise(rows) -> per question type; format_table(summary) -> text

Metrics per question type (abstentions apart):

turn full recall      share of questions whose gold turns (``has_answer``) are ALL retrieved
session recall_all@k  share of questions whose evidence sessions (``answer_session_ids``) are
                      ALL among the k best-ranked sessions — the LongMemEval paper's
                      ``recall_all@k`` at session level. Sessions are ranked by their best turn
                      in the retrieval's turn ranking (fused scores, best first); a strategy
                      that ranks no turns ranks sessions in the order its buffer names them.
tokens, answer F1, latency   as for LoCoMo (``memory_core.eval.metrics``)
abstention            ``_abs`` questions have no evidence: the haystack does not hold the
                      answer. They are not scored for recall; an answer of "Unknown" (or one
                      saying the information is not available) counts as a correct abstention.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.config import ImportLimits
from memory_core.eval.metrics import group_metrics
from memory_core.eval.run import Asked, row_of
from memory_core.eval.run import run_line as base_run_line
from memory_core.eval_rows import SESSION_KS, EvalRow, LmeFacts
from memory_core.eval_summary import OVERALL, EvalSummary, GroupSummary
from memory_core.ingest import load_bytes, stream_file
from memory_core.ingest.longmemeval import is_abstention
from memory_core.models import Conversation

RUN_EXTRAS = ("abstention", "abstained", "question_date", "answer_sessions", "session_ranking",
              *(f"session_recall_all@{k}" for k in SESSION_KS))
ABSTENTION = "abstention"
QUESTION_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                  "multi-session", "knowledge-update", "temporal-reasoning")  # LongMemEval's six
_UNKNOWN = re.compile(r"\b(unknown|not (?:mentioned|enough|available|provided|stated)|no information|"
                      r"(?:do|does|did) not (?:say|mention|know)|cannot (?:tell|determine|answer))\b",
                      re.I)


@dataclass(frozen=True)
class LmeQuestion:
    conv_id: str  # the question_id
    question: str
    answer: str
    question_type: str
    evidence: tuple[str, ...]  # ids of the has_answer turns
    answer_sessions: tuple[int, ...]  # haystack positions (from 1) of answer_session_ids
    abstention: bool
    question_date: str | None = None
    question_time: datetime | None = None


AskLme = Callable[[LmeQuestion], Asked]


def question_of(conv: Conversation) -> LmeQuestion:
    """The question of an imported LongMemEval conversation (its one QA item and meta)."""
    if not conv.qa:
        raise ValueError(f"conversation '{conv.id}' has no question (not a LongMemEval item)")
    qa = conv.qa[0]
    meta = conv.meta
    haystack = [str(s) for s in meta.get("haystack_session_ids") or []]
    wanted = [str(s) for s in meta.get("answer_session_ids") or []]
    sessions = tuple(haystack.index(s) + 1 for s in wanted if s in haystack)
    if not sessions:  # ids missing or unmatched: the sessions of the evidence turns
        sessions = tuple(sorted({int(t[1:].split(":")[0]) for t in qa.evidence}))
    return LmeQuestion(
        conv_id=conv.id, question=qa.question, answer=qa.answer or "",
        question_type=str(meta.get("question_type") or "unknown"), evidence=tuple(qa.evidence),
        answer_sessions=sessions, abstention=bool(meta.get("abstention", is_abstention(conv.id))),
        question_date=meta.get("question_date"), question_time=qa.question_time,
    )


def read_questions(path: str | Path, *, limits: ImportLimits | None = None,
                   types: Sequence[str] | None = None,
                   limit: int | None = None) -> Iterator[tuple[Conversation, LmeQuestion]]:
    """The file's items (streamed: one haystack in memory at a time), filtered by question
    type (an abstention's type is its base type, e.g. ``knowledge-update``) and count."""
    streamed = stream_file(path, fmt="longmemeval", limits=limits)
    return select(streamed.conversations(), types=types, limit=limit)


def read_questions_bytes(name: str, data: bytes, *, limits: ImportLimits | None = None,
                         types: Sequence[str] | None = None,
                         limit: int | None = None) -> list[tuple[Conversation, LmeQuestion]]:
    """``read_questions`` for an upload held in memory (read from its bytes, never written
    to disk; what is kept is bounded by the import limit, as for any upload)."""
    loaded = load_bytes(name, data, fmt="longmemeval", limits=limits)
    return list(select(loaded.conversations, types=types, limit=limit))


def select(conversations: Iterable[Conversation], *, types: Sequence[str] | None = None,
           limit: int | None = None) -> Iterator[tuple[Conversation, LmeQuestion]]:
    """Imported LongMemEval conversations with their questions, filtered by type and count."""
    wanted = set(types or ())
    taken = 0
    for conv in conversations:
        if limit is not None and taken >= limit:
            return
        q = question_of(conv)
        if wanted and q.question_type not in wanted and not (q.abstention and ABSTENTION in wanted):
            continue
        taken += 1
        yield conv, q


def session_ranking(ranking: Sequence[tuple[str, float]], retrieved: Sequence[str]) -> list[int]:
    """Sessions best first: by their best turn in ``ranking``, else in ``retrieved`` order."""
    order = [turn_id for turn_id, _ in ranking] or list(retrieved)
    sessions: dict[int, None] = {}
    for turn_id in order:
        session = _session(turn_id)
        if session is not None:
            sessions.setdefault(session, None)
    return list(sessions)


def recall_all_at(sessions: Sequence[int], gold: Iterable[int], k: int) -> bool:
    top = set(sessions[:k])
    return all(g in top for g in gold)


def is_abstention_answer(answer: str) -> bool:
    return bool(_UNKNOWN.search(answer or ""))


def make_row(q: LmeQuestion, asked: Asked) -> EvalRow:
    sessions = session_ranking(asked.ranking, [b.turn_id for b in asked.trace.buffer])
    facts = LmeFacts(
        abstention=q.abstention,
        question_date=q.question_date,
        answer_sessions=list(q.answer_sessions),
        session_ranking=sessions[:max(SESSION_KS)],
        session_recall={k: (recall_all_at(sessions, q.answer_sessions, k)
                            if q.answer_sessions and not q.abstention else None) for k in SESSION_KS},
        abstained=is_abstention_answer(asked.trace.answer.text) if q.abstention else None,
    )
    return row_of(q.conv_id, 0, q.question_type, q.question, q.answer, q.evidence, asked, lme=facts)


def evaluate(questions: Iterable[LmeQuestion], ask: AskLme, *,
             on_row: Callable[[EvalRow], None] | None = None) -> list[EvalRow]:
    """One row per question, in order."""
    rows = []
    for q in questions:
        row = make_row(q, ask(q))
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def summarise(rows: Sequence[Mapping[str, Any]]) -> EvalSummary:
    """Per question type (abstentions in their own group) and "overall" (without them)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        key = ABSTENTION if row.get("abstention") else str(row["category"])
        groups.setdefault(key, []).append(row)
    groups[OVERALL] = [r for r in rows if not r.get("abstention")]
    out: dict[str, GroupSummary] = {}
    for key in sorted(groups, key=lambda k: (k in (ABSTENTION, OVERALL), k == OVERALL, k)):
        members = groups[key]
        if not members:
            continue
        out[key] = _group(members, abstention=key == ABSTENTION)
    return EvalSummary(out)


def _group(members: Sequence[Mapping[str, Any]], *, abstention: bool) -> GroupSummary:
    recall: dict[int, float | None] = {}
    for k in SESSION_KS:
        values = [r[f"session_recall_all@{k}"] for r in members
                  if r.get(f"session_recall_all@{k}") is not None]
        recall[k] = statistics.mean(float(v) for v in values) if values else None
    abstained = statistics.mean(float(bool(r.get("abstained"))) for r in members) if abstention else None
    return replace(group_metrics(members), session_recall=recall, abstained=abstained)


def _fmt(v: float | None, spec: str, width: int) -> str:
    return (format(v, spec) if v is not None else "-").rjust(width)


def format_table(summary: EvalSummary) -> str:
    head = (f"{'question type':26} {'n':>3} {'turn_R':>6} {'cov':>5} {'sR@5':>5} {'sR@10':>5} "
            f"{'tokens':>7} {'F1':>5} {'EM':>5} {'has':>5} {'lat_p50':>7} {'lat_p95':>7}")
    lines = [head]
    f = _fmt
    for key, s in summary.items():
        recall = s.session_recall or {}
        line = (f"{key:26} {s.n:3d} {f(s.full_recall, '.3f', 6)} {f(s.coverage, '.2f', 5)} "
                f"{f(recall.get(5), '.2f', 5)} {f(recall.get(10), '.2f', 5)} "
                f"{f(s.tokens_mean, '.0f', 7)} {f(s.answer_f1, '.3f', 5)} "
                f"{f(s.answer_em, '.2f', 5)} {f(s.answer_contains, '.2f', 5)} "
                f"{f(s.latency_p50, '.3f', 7)} {f(s.latency_p95, '.3f', 7)}")
        if s.abstained is not None:
            line += f"  correct abstentions {s.abstained:.2f}"
        lines.append(line)
    return "\n".join(lines)


def run_line(row: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON line of a row: the ``eval locomo`` fields and extras, plus LongMemEval's own."""
    line = base_run_line(row)
    line.update({k: row[k] for k in RUN_EXTRAS if k in row})
    return line


def _session(turn_id: str) -> int | None:
    m = re.match(r"D(\d+):\d+$", turn_id)
    return int(m.group(1)) if m else None


__all__ = ["ABSTENTION", "SESSION_KS", "AskLme", "LmeQuestion", "evaluate", "format_table",
           "is_abstention_answer", "make_row", "question_of", "read_questions", "read_questions_bytes",
           "recall_all_at", "run_line", "select", "session_ranking", "summarise"]
