"""Assembling a validated ``Conversation`` from turns added one at a time.

Every importer feeds a ``ConversationBuilder``: it numbers turns (``D<session>:<n>`` when the
source gives no id), refuses duplicate ids and turns with neither text nor caption, truncates
over-long turns with a warning, and reads each session's date once (unreadable -> a warning
and no time). Turns may arrive in any session order; inside a session file order is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory_core.ids import normalise_evidence
from memory_core.ingest.common import (
    Context,
    answer_text,
    check_meta,
    get_dict,
    get_int,
    get_list,
    get_str,
    key_path,
    opt_str,
    required,
    show,
)
from memory_core.models import Conversation, QAItem, Session, Turn
from memory_core.timeexpr import parse_datetime


@dataclass
class _SessionDraft:
    index: int
    time_text: str = ""
    time_where: str = ""
    time: datetime | None = None
    resolved: bool = False  # time already read by the importer (no parsing, no warning here)
    turns: list[tuple[str, str, str, str | None, str | None]] = field(default_factory=list)


class ConversationBuilder:
    def __init__(self, ctx: Context, conv_id: str, fmt: str, where: str = "") -> None:
        self.ctx = ctx
        self.conv_id = conv_id
        self.fmt = fmt
        self.where = where
        self._sessions: dict[int, _SessionDraft] = {}
        self._ids: dict[str, str] = {}  # turn id -> where it was first seen
        self._speakers: dict[str, None] = {}

    # ------------------------------------------------------------------ input
    def session(self, index: int, time_text: str | None = None, where: str = "", *,
                time: datetime | None = None, resolved: bool = False) -> None:
        """Declare a session (and its date as written) — the first date given wins.

        With ``resolved`` the importer has read ``time`` itself (None: no date) and the raw
        ``time_text`` is kept as written.
        """
        draft = self._sessions.get(index)
        if draft is None:
            draft = self._sessions[index] = _SessionDraft(index)
        if resolved:
            draft.time_text, draft.time_where, draft.time, draft.resolved = (
                (time_text or "").strip(), where, time, True)
            return
        text = (time_text or "").strip()
        if text and not draft.time_text:
            draft.time_text, draft.time_where = text, where
        elif text and text != draft.time_text:
            self.ctx.warn(where, f"session {index} already has the date {show(draft.time_text)}; "
                                 f"ignored {show(text)}")

    def add_turn(self, session: int, speaker: str, text: str | None, *, where: str,
                 caption: str | None = None, url: str | None = None,
                 turn_id: str | None = None, keep_empty: bool = False) -> str:
        """Add one turn and return its id.

        A turn with neither text nor caption is refused, unless ``keep_empty``: then it is kept
        with empty text (and a warning) so that the ids of the turns after it do not shift.
        """
        self.ctx.count_turn(where)
        if session not in self._sessions:
            self.session(session)
        draft = self._sessions[session]
        tid = turn_id if turn_id is not None else f"D{session}:{len(draft.turns) + 1}"
        first = self._ids.get(tid)
        if first is not None:
            raise self.ctx.error(where, f"duplicate turn id {show(tid)} (first at {first})")
        body = text or ""
        caption = caption if caption and caption.strip() else None
        if not body.strip() and caption is None:
            if not keep_empty:
                raise self.ctx.error(where, f"turn {show(tid)} has neither text nor image caption")
            self.ctx.warn(where, f"turn {show(tid)} is empty; kept with no text so later turn ids "
                                 "keep their place")
            body = ""
        speaker = speaker.strip()
        if not speaker:
            raise self.ctx.error(where, f"turn {show(tid)} has an empty speaker")
        body = self.ctx.clip(body, where, f"turn {show(tid)}")
        if caption is not None:
            caption = self.ctx.clip(caption, where, f"the image caption of turn {show(tid)}")
        self._ids[tid] = where or "?"
        self._speakers.setdefault(speaker, None)
        draft.turns.append((tid, speaker, body, caption, url))
        return tid

    @property
    def turn_ids(self) -> set[str]:
        return set(self._ids)

    @property
    def turn_count(self) -> int:
        return len(self._ids)

    # ------------------------------------------------------------------ output
    def build(self, *, speakers: Iterable[str] = (), qa: Iterable[QAItem] = (),
              meta: dict[str, Any] | None = None) -> Conversation:
        sessions: list[Session] = []
        for index in sorted(self._sessions):
            draft = self._sessions[index]
            if not draft.turns:
                continue  # a declared session without turns (LoCoMo keeps dates of unused ones)
            if draft.resolved:
                time = draft.time
            else:
                time = parse_datetime(draft.time_text) if draft.time_text else None
            if draft.time_text and time is None and not draft.resolved:
                self.ctx.warn(draft.time_where or f"session {index}",
                              f"cannot read the session date {show(draft.time_text)}; "
                              f"session {index} has no time")
            turns = tuple(
                Turn(id=tid, session=index, index=i, speaker=speaker, text=body,
                     image_caption=caption, image_url=url, session_time=time)
                for i, (tid, speaker, body, caption, url) in enumerate(draft.turns)
            )
            sessions.append(Session(index=index, time=time, time_text=draft.time_text, turns=turns))
        if not sessions:
            raise self.ctx.error(self.where or f"conversation {show(self.conv_id)}",
                                 "conversation has no turns")
        names = [s for s in speakers if s] + list(self._speakers)  # declared first, then seen
        return Conversation(
            id=self.conv_id,
            speakers=tuple(dict.fromkeys(names)),
            sessions=tuple(sessions),
            qa=tuple(qa),
            source_format=self.fmt,
            source_name=self.ctx.name,
            meta=check_meta(self.ctx, meta or {}, self.where or "$"),
        )


def parse_qa(ctx: Context, items: list[Any], where: str,
             known: set[str]) -> tuple[list[QAItem], dict[str, list[str]]]:
    """QA items (question, answer, evidence, category, adversarial_answer, question_time).

    ``qid`` is the index in the full list. Returns the items and, per qid, the evidence
    tokens that name no turn (skipped).
    """
    out: list[QAItem] = []
    unmatched: dict[str, list[str]] = {}
    for qid, qw, item in question_items(ctx, items, where):
        question = get_str(ctx, required(ctx, item, "question", qw), key_path(qw, "question"))
        raw = item.get("evidence") or []
        raw_list = [raw] if isinstance(raw, str) else get_list(ctx, raw, key_path(qw, "evidence"))
        tokens = [get_str(ctx, e, f"{key_path(qw, 'evidence')}[{k}]", numbers=True)
                  for k, e in enumerate(raw_list)]
        evidence, missing = normalise_evidence(tokens, known)
        if missing:
            unmatched[str(qid)] = missing
        category = item.get("category")
        qtime_where = key_path(qw, "question_time")
        qtime_text = opt_str(ctx, item.get("question_time"), qtime_where)
        qtime = parse_datetime(qtime_text) if qtime_text else None
        if qtime_text and qtime is None:
            ctx.warn(qtime_where, f"cannot read the question time {show(qtime_text)}")
        out.append(QAItem(
            qid=qid,
            question=question,
            answer=answer_text(ctx, item.get("answer"), key_path(qw, "answer")),
            evidence=tuple(evidence),
            category=None if category is None else get_int(ctx, category, key_path(qw, "category"),
                                                           minimum=0),
            adversarial_answer=answer_text(ctx, item.get("adversarial_answer"),
                                           key_path(qw, "adversarial_answer")),
            question_time=qtime,
        ))
    return out, unmatched


def warn_unmatched(ctx: Context, where: str, conv_id: str, unmatched: dict[str, list[str]]) -> None:
    listed = "; ".join(f"qa[{q}] {', '.join(show(t) for t in toks)}"
                       for q, toks in list(unmatched.items())[:4])
    total = sum(len(v) for v in unmatched.values())
    ctx.warn(where, f"{total} evidence id(s) name no turn of {show(conv_id)} and were skipped: {listed}")


def question_items(ctx: Context, items: list[Any], where: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """``(index, json path, question object)`` for each item of a list of questions."""
    for i, value in enumerate(items):
        qw = f"{where}[{i}]"
        yield i, qw, get_dict(ctx, value, qw, "a question object")


def warn_set_aside(ctx: Context, where: str, count: int, why: str, named: str = "") -> None:
    """One warning for the questions kept out of QA (in ``meta["qa_unresolved"]``)."""
    ctx.warn(where, f"{count} question(s) {why} were set aside (meta qa_unresolved)"
                    + (f": {named}" if named else ""))


def read_date(text: str, layout: str, loose: str | None = None) -> datetime | None:
    """A date written in the format's own ``layout`` (strptime), else read loosely (``loose``
    if given: the text reworded for ``parse_datetime``); None if neither reads it."""
    try:
        return datetime.strptime(text.strip(), layout)
    except ValueError:
        return parse_datetime(text if loose is None else loose)
