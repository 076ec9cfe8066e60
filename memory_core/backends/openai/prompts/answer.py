"""Answer stage: a short answer from the restored source turns, citing them.

Builder (pure) → ``AnswerReply`` → ``to_answer`` (pure). The buffer (original turns of the
retrieved episodes, grouped per episode with their session dates) is the only evidence; the
plan is shown as a reading aid. Citations outside the buffer are removed; an empty answer is
unusable; an answer of "Unknown" is marked unsupported.
"""

# ruff: noqa: E501  (prompt text is kept one instruction per line)

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from memory_core.backends.openai.prompts.common import Ids, Messages, Reply, Text, known
from memory_core.llm.parsing import Checked
from memory_core.models import Answer, BufferTurn, Plan, Record, SupportLevel
from memory_core.query.grounding import grade

UNKNOWN = "Unknown"
RECORDS_SHOWN = 12

SYSTEM = (
    "You answer questions about a past conversation using only the excerpts of it that you are "
    "given. The excerpts are the evidence; nothing else is. You keep each fact tied to the person "
    "it belongs to, and you say so when the excerpts do not settle the question. You answer with "
    "one JSON object and nothing else."
)

INSTRUCTIONS = """Answer the question from the excerpts below.

- Use only what the excerpts say (including the [image: ...] descriptions attached to a turn); no outside knowledge, no guessing.
- The plan lists what evidence was searched for; it is a reading aid, not evidence.
- For questions that count, list, compare or ask for the first/last case, go through every excerpt and collect every qualifying case before answering.
- For questions about time, find the event first, then state its time; work out dates from the session date when a turn says "yesterday", "last week" and so on, and keep the wording approximate when the turns are.
- Answer in the form the question asks for, as short as will do and never a cut-off phrase: who -> a person's name (or the relation, e.g. "her brother Tom"); where -> the place; when -> the date, worked out from the session date; how many -> a number; yes/no questions -> "Yes" or "No"; "would/likely" questions -> "Likely yes" or "Likely no"; what -> the thing itself (a noun phrase); questions that gather -> the items, joined by commas. No explanation.
- Records, when given, are facts extracted from the conversation (some corrected by people); prefer a record that states exactly what is asked, and cite its turns.
- If the excerpts do not establish the answer, the answer is exactly "Unknown".

Give:
- "answer": the answer text,
- "cited_turn_ids": the ids (from the square brackets) of the turns that support it,
- "supported": true when the excerpts establish the answer, false otherwise.

Answer with JSON of this shape:
{"answer": "...", "cited_turn_ids": ["<turn id>"], "supported": true}"""


class AnswerReply(Reply):
    answer: Text = ""
    cited_turn_ids: Ids = Field(default_factory=list)
    supported: bool | None = None


def render_plan(plan: Plan) -> str:
    lines = [f"answer target: {plan.answer_target or 'not stated'}; reasoning: {plan.reasoning_type.value}; "
             f"scope: {plan.scope.value}"]
    for i, req in enumerate(plan.requirements):
        parts = [f"entity={req.entity or '?'}", f"property={req.property or '?'}"]
        if req.value:
            parts.append(f"value={req.value}")
        if req.condition:
            parts.append(f"condition={req.condition}")
        lines.append(f"  {i}. [{req.role}] " + ", ".join(parts))
    if plan.time_condition:
        lines.append(f"time condition: {plan.time_condition}")
    return "\n".join(lines)


def render_buffer(buffer: list[BufferTurn]) -> str:
    blocks: list[str] = []
    current: object = object()
    for turn in buffer:
        key = (turn.episode_id, turn.session)
        if key != current:
            current = key
            when = f"{turn.session_time:%d %B %Y}" if turn.session_time else "date unknown"
            name = turn.episode_id or f"session {turn.session}"
            blocks.append(f"\n--- {name} (session {turn.session}, {when})")
        body = turn.text + (f" [image: {turn.image_caption}]" if turn.image_caption else "")
        blocks.append(f"[{turn.turn_id}] {turn.speaker}: {body}")
    return "\n".join(blocks).strip()


def render_records(records: Sequence[Record]) -> str:
    return "\n".join(f"- {r.entity} · {r.property} = {r.value} [{', '.join(r.evidence_turn_ids)}]"
                     for r in records[:RECORDS_SHOWN])


def build_messages(question: str, plan: Plan, buffer: list[BufferTurn],
                   records: Sequence[Record] = ()) -> Messages:
    excerpts = render_buffer(buffer) or "(no excerpts were found)"
    facts = f"Records:\n{render_records(records)}\n\n" if records else ""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{INSTRUCTIONS}\n\nPlan:\n{render_plan(plan)}\n\n{facts}"
                                    f"Excerpts:\n{excerpts}\n\nQuestion: {question}"},
    ]


def to_answer(reply: AnswerReply, buffer: list[BufferTurn], plan: Plan | None = None,
              records: Sequence[Record] = ()) -> Checked[Answer]:
    """The reply as an answer; its support graded by the same check as every answer
    (``query.grounding``): claimed, grounded in the cited turns or records, entities covered."""
    problems: list[str] = []
    text = reply.answer.strip()
    if not text:
        return Checked(None, ["the answer is empty"])
    cited, outside = known(reply.cited_turn_ids, {t.turn_id for t in buffer})
    if outside:
        problems.append(f"cited turn ids not among the excerpts removed: {', '.join(outside[:5])}")
    unknown = text.rstrip(".").strip().lower() == UNKNOWN.lower()
    claimed = bool(reply.supported) if reply.supported is not None else bool(cited)
    if unknown:
        claimed, cited = False, []
    by_id = {t.turn_id: t for t in buffer}
    cited_turns = [by_id[i] for i in cited if i in by_id]
    cited_records = [r for r in records if set(r.evidence_turn_ids) & set(cited)]
    level = grade(text, plan or Plan(question=""), cited_turns, cited_records, claimed)
    return Checked(Answer(text=text, cited_turn_ids=tuple(cited), supported=level != SupportLevel.UNKNOWN,
                          support=level, record_ids=tuple(r.id for r in cited_records)), problems)
