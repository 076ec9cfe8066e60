"""LongMemEval: a JSON list of items (or one item), each becoming one conversation.

An item is ``{"question_id", "question_type", "question", "answer", "question_date",
"haystack_session_ids", "haystack_dates", "haystack_sessions": [[{"role", "content",
"has_answer"?}]], "answer_session_ids"}``. The conversation id is ``question_id``; speakers
are the roles (``user``, ``assistant``); session k of the haystack is session k (1-based) with
its date; turn ids are ``D<session>:<n>`` — the n-th turn, empty turns counted: an empty turn (the
official S file has one) is kept with no text and a warning, so no id shifts. The question
becomes the one QA item (qid 0) whose evidence is the ids of the turns marked ``has_answer``;
a number answer is kept as text. ``question_type``, ``question_date``,
``answer_session_ids``, ``haystack_session_ids`` and ``abstention`` (the question id ends in
``_abs``: the haystack does not hold the answer, and "Unknown" is the right reply) go to
``meta``.

Files are read with ``read_items``: streamed item by item (``ijson``), so memory holds one
item at a time whatever the file's size (S is ~250 MB, M ~2.7 GB).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memory_core.ingest.builder import ConversationBuilder
from memory_core.ingest.common import (
    Context,
    answer_text,
    first_item,
    get_dict,
    get_id,
    get_list,
    get_str,
    key_path,
    opt_str,
    required,
    show,
)
from memory_core.ingest.reading import Opened, stream_json
from memory_core.models import Conversation, QAItem
from memory_core.timeexpr import parse_datetime

FORMAT = "longmemeval"


def looks_like(data: Any) -> bool:
    first = first_item(data)
    return isinstance(first, dict) and ("haystack_sessions" in first or "question_id" in first)


def read_items(source: Opened, ctx: Context, *, per_item_limits: bool = False) -> Iterator[Conversation]:
    """The file's items as conversations, one at a time (call ``reading.scan_json`` first).

    With ``per_item_limits`` the turn limit (``MNEMOSCOPE_MAX_TURNS``) applies to each item
    rather than to the whole file: nothing more than one item is kept at a time.
    """
    empty = True
    for where, value in stream_json(source, ctx):
        empty = False
        if per_item_limits:
            ctx.turns = 0
        yield item_conversation(ctx, value, where)
    if empty:
        raise ctx.error("$", "empty list: no LongMemEval items")


def is_abstention(question_id: str) -> bool:
    return question_id.endswith("_abs")


def item_conversation(ctx: Context, value: Any, where: str) -> Conversation:
    item = get_dict(ctx, value, where, "a LongMemEval item object")
    conv_id = get_id(ctx, item.get("question_id"), key_path(where, "question_id"), "question_id")
    sessions_where = key_path(where, "haystack_sessions")
    sessions = get_list(ctx, required(ctx, item, "haystack_sessions", where), sessions_where,
                        "a list of sessions")
    dates_where = key_path(where, "haystack_dates")
    dates = get_list(ctx, item.get("haystack_dates") or [], dates_where)
    if dates and len(dates) != len(sessions):
        raise ctx.error(dates_where, f"{len(dates)} dates for {len(sessions)} sessions")
    ids_where = key_path(where, "haystack_session_ids")
    session_ids = [get_str(ctx, v, f"{ids_where}[{k}]", numbers=True)
                   for k, v in enumerate(get_list(ctx, item.get("haystack_session_ids") or [], ids_where))]
    if session_ids and len(session_ids) != len(sessions):
        raise ctx.error(ids_where, f"{len(session_ids)} ids for {len(sessions)} sessions")
    builder = ConversationBuilder(ctx, conv_id, FORMAT, where)
    evidence: list[str] = []
    for k, raw_session in enumerate(sessions):
        sw = f"{sessions_where}[{k}]"
        turns = get_list(ctx, raw_session, sw, "a list of turns")
        date = opt_str(ctx, dates[k], f"{dates_where}[{k}]") if dates else None
        builder.session(k + 1, date, f"{dates_where}[{k}]")
        for j, raw_turn in enumerate(turns):
            tw = f"{sw}[{j}]"
            turn = get_dict(ctx, raw_turn, tw, "a turn object")
            role = get_str(ctx, required(ctx, turn, "role", tw), key_path(tw, "role"))
            content = opt_str(ctx, turn.get("content"), key_path(tw, "content"))
            tid = builder.add_turn(k + 1, role, content, where=tw, keep_empty=True)
            if turn.get("has_answer") is True:
                evidence.append(tid)
    question = get_str(ctx, required(ctx, item, "question", where), key_path(where, "question"))
    qdate_where = key_path(where, "question_date")
    qdate = opt_str(ctx, item.get("question_date"), qdate_where)
    qtime = parse_datetime(qdate) if qdate else None
    if qdate and qtime is None:
        ctx.warn(qdate_where, f"cannot read the question date {show(qdate)}")
    qa = QAItem(
        qid=0,
        question=question,
        answer=answer_text(ctx, item.get("answer"), key_path(where, "answer")),
        evidence=tuple(evidence),
        question_time=qtime,
    )
    answer_ids_where = key_path(where, "answer_session_ids")
    raw_answer_ids = get_list(ctx, item.get("answer_session_ids") or [], answer_ids_where)
    answer_ids = [get_str(ctx, v, f"{answer_ids_where}[{k}]", numbers=True)
                  for k, v in enumerate(raw_answer_ids)]
    meta: dict[str, Any] = {
        "question_type": opt_str(ctx, item.get("question_type"), key_path(where, "question_type")),
        "answer_session_ids": answer_ids,
        "haystack_session_ids": session_ids,
        "abstention": is_abstention(conv_id),
    }
    if qdate:
        meta["question_date"] = qdate
    return builder.build(speakers=["user", "assistant"], qa=[qa], meta=meta)
