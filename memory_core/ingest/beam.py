"""BEAM: a chat directory as its authors publish it (``<scale>/<n>/chat.json`` and
``<scale>/<n>/probing_questions/probing_questions.json``).

``chat.json`` is a list of batches ``{"batch_number", "time_anchor"?, "turns": [[{"role":
"user" | "assistant", "id", "content", "time_anchor"?, "index"?, "question_type"?}]]}`` (the
inner lists group a question with its replies). Import the directory, or ``chat.json``: the
questions are read from ``probing_questions/probing_questions.json`` beside it (or
``probing_questions.json`` beside it); without one the chat is imported with no questions and
a warning. The id is ``beam-<scale>-<n>`` from the path (``100K/3/chat.json`` ->
``beam-100k-3``), else ``beam-<directory>``.

Each batch is a session (its number), dated by its first message's ``time_anchor``
(``March-15-2024``). Message ``id`` m of batch b is turn ``D<b>:<m+1>`` (ids run on across
batches), its speaker the role; the ``->-> b,k`` marker ending a message is removed.

Questions (``{type: [{"question", "answer" | "ideal_answer" | "expected_compliance", ...,
"source_chat_ids": [ids] | {label: [ids]}}]}``) become QA in the file's order of types, their
evidence the turns of ``source_chat_ids`` in message order, categories as the bench maps them
(``CATEGORIES``); ``meta["beam_types"]`` keeps each QA item's own type. Summarization and
abstention questions (no turn evidence to score) are left out and counted in a warning; a
question whose ids name no message is set aside in ``meta["qa_unresolved"]`` with a warning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memory_core.ingest.builder import ConversationBuilder, question_items, read_date, warn_set_aside
from memory_core.ingest.common import (
    Context,
    answer_text,
    first_item,
    get_dict,
    get_int,
    get_list,
    get_str,
    key_path,
    opt_str,
    show,
)
from memory_core.ingest.reading import load_json, open_source, read_text
from memory_core.models import Conversation, QAItem

FORMAT = "beam"
QUESTIONS = ("probing_questions/probing_questions.json", "probing_questions.json")
CATEGORIES = {  # BEAM's question type -> LoCoMo-style category (1 multi-hop ... 4 single-hop)
    "multi_session_reasoning": 1, "event_ordering": 1,
    "temporal_reasoning": 2,
    "knowledge_update": 3, "contradiction_resolution": 3,
    "information_extraction": 4, "preference_following": 4, "instruction_following": 4,
}
LEFT_OUT = ("summarization", "abstention")
ANSWER_KEYS = ("answer", "ideal_answer", "expected_compliance", "ideal_response", "ideal_summary")
MARKER = re.compile(r"\s*->->\s*[^\s,]+\s*,\s*\S+\s*$")
_SCALE = re.compile(r"^\d+[KkMm]$")
_SPEAKERS = ("user", "assistant")


def looks_like(data: Any) -> bool:
    first = first_item(data)
    return isinstance(first, dict) and "batch_number" in first and isinstance(first.get("turns"), list)


def looks_like_questions(data: Any) -> bool:
    """BEAM's ``probing_questions.json`` (refused alone: it names messages of a chat.json)."""
    return (isinstance(data, dict) and bool(data) and set(data) <= {*CATEGORIES, *LEFT_OUT}
            and all(isinstance(v, list) for v in data.values()))


def conversation_id(path: Path) -> str:
    parent = path.parent
    if parent.name and _SCALE.match(parent.parent.name):
        return f"beam-{parent.parent.name.lower()}-{parent.name}"
    return f"beam-{parent.name or path.stem}"


def parse(data: Any, ctx: Context, path: Path | None) -> list[Conversation]:
    """The chat (``path``: where it was read from, to find its questions; None for an upload)."""
    batches = get_list(ctx, data, "$", "a list of batches")
    if not batches:
        raise ctx.error("$", "empty list: no batches")
    conv_id = conversation_id(path if path is not None else Path(ctx.name))
    builder = ConversationBuilder(ctx, conv_id, FORMAT, "$")
    messages: dict[int, str] = {}  # message id -> turn id
    for i, value in enumerate(batches):
        _batch(ctx, builder, value, f"$[{i}]", i + 1, messages)
    qa: list[QAItem] = []
    meta: dict[str, Any] = {}
    found = _questions_file(path)
    if found is None:
        ctx.warn("", "no probing_questions/probing_questions.json beside the chat: imported "
                     "without questions")
    else:
        qa, meta = _read_questions(ctx, found, messages)
    return [builder.build(speakers=_SPEAKERS, qa=qa, meta=meta)]


def _batch(ctx: Context, builder: ConversationBuilder, value: Any, where: str, position: int,
           messages: dict[int, str]) -> None:
    batch = get_dict(ctx, value, where, "a batch object")
    number = get_int(ctx, batch.get("batch_number", position), key_path(where, "batch_number"))
    turns_where = key_path(where, "turns")
    flat: list[tuple[str, Any]] = []
    for j, group in enumerate(get_list(ctx, batch.get("turns"), turns_where, "a list of turns")):
        if isinstance(group, list):
            flat.extend((f"{turns_where}[{j}][{k}]", m) for k, m in enumerate(group))
        else:
            flat.append((f"{turns_where}[{j}]", group))
    anchor_where = key_path(where, "time_anchor")
    anchor = opt_str(ctx, batch.get("time_anchor"), anchor_where)
    for message_where, raw in flat:
        message = get_dict(ctx, raw, message_where, "a message object")
        if anchor is None and message.get("time_anchor") is not None:
            anchor_where = key_path(message_where, "time_anchor")
            anchor = opt_str(ctx, message["time_anchor"], anchor_where)
        if anchor is not None:
            break
    date = read_date(anchor, "%B-%d-%Y", anchor.replace("-", " ")) if anchor else None
    if anchor and date is None:
        ctx.warn(anchor_where, f"cannot read the time anchor {show(anchor)}; batch {number} has no date")
    builder.session(number, anchor or "", anchor_where, time=date, resolved=True)
    for message_where, raw in flat:
        _message(ctx, builder, number, raw, message_where, messages)


def _message(ctx: Context, builder: ConversationBuilder, session: int, raw: Any, where: str,
             messages: dict[int, str]) -> None:
    message = get_dict(ctx, raw, where, "a message object")
    role = get_str(ctx, message.get("role"), key_path(where, "role"))
    mid = get_int(ctx, message.get("id"), key_path(where, "id"), minimum=0)
    if mid in messages:
        raise ctx.error(key_path(where, "id"), f"message id {mid} appears twice (first as turn "
                                               f"{show(messages[mid])})")
    content = get_str(ctx, message.get("content", ""), key_path(where, "content"))
    text = MARKER.sub("", content)
    turn_id = builder.add_turn(session, role, text, where=where, turn_id=f"D{session}:{mid + 1}",
                               keep_empty=True)
    messages[mid] = turn_id


# --------------------------------------------------------------------------- questions
def _questions_file(path: Path | None) -> Path | None:
    if path is None:
        return None
    for name in QUESTIONS:
        candidate = path.parent / name
        if candidate.is_file():
            return candidate
    return None


def _shown(path: Path) -> str:
    """The questions file as warnings name it (relative to the chat's directory)."""
    return path.name if path.parent.name != "probing_questions" else f"probing_questions/{path.name}"


def _read_questions(ctx: Context, path: Path,
                    messages: dict[int, str]) -> tuple[list[QAItem], dict[str, Any]]:
    qctx = Context(str(path), ctx.limits)
    data = get_dict(qctx, load_json(read_text(open_source(path, qctx), qctx), qctx), "$",
                    "an object of question types")
    qa: list[QAItem] = []
    types: list[str] = []
    unresolved: list[dict[str, Any]] = []
    left_out: dict[str, int] = {}
    for qtype, items in data.items():
        type_where = key_path("$", qtype)
        listed = get_list(qctx, items, type_where, "a list of questions")
        if qtype not in CATEGORIES:
            left_out[qtype] = len(listed)
            continue
        for i, qw, item in question_items(qctx, listed, type_where):
            ids = _chat_ids(qctx, item.get("source_chat_ids"), key_path(qw, "source_chat_ids"))
            missing = [m for m in ids if m not in messages]
            if not ids or missing:
                unresolved.append({"type": qtype, "index": i, "question": item.get("question"),
                                   "source_chat_ids": item.get("source_chat_ids")})
                continue
            answer = next((item[k] for k in ANSWER_KEYS if item.get(k) is not None), None)
            question = get_str(qctx, item.get("question"), key_path(qw, "question"))
            qa.append(QAItem(qid=len(qa), question=question,
                             answer=answer_text(qctx, answer, qw),
                             evidence=tuple(messages[m] for m in sorted(set(ids))),
                             category=CATEGORIES[qtype]))
            types.append(qtype)
    for warning in qctx.warnings:  # e.g. a legacy encoding
        ctx.warn(_shown(path), warning.removeprefix(f"{qctx.file}: "))
    if left_out:
        counts = ", ".join(f"{n} {t}" for t, n in left_out.items())
        ctx.warn(_shown(path), f"left out {sum(left_out.values())} question(s) without turn evidence "
                            f"to score: {counts}")
    if unresolved:
        warn_set_aside(ctx, _shown(path), len(unresolved),
                       "whose source_chat_ids name no message of the chat")
    meta: dict[str, Any] = {"beam_types": types, "questions_file": _shown(path)}
    if unresolved:
        meta["qa_unresolved"] = unresolved
    return qa, meta


def _chat_ids(ctx: Context, value: Any, where: str) -> list[int]:
    """Message ids from a list, or a dict of lists (``{"first_statement": [..], ...}``), lists
    nested at any depth; anything but a whole number makes the question unresolvable (-1)."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [i for v in value.values() for i in _chat_ids(ctx, v, where)]
    if isinstance(value, list):
        return [i for v in value for i in _chat_ids(ctx, v, where)]
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return [value]
    return [-1]
