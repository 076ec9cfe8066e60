"""The generic chat format: JSON, JSONL and CSV rows of turns.

A turn has ``speaker`` (required), ``text``, ``conversation_id``, ``session`` (a whole number
from 1; default 1), ``session_time``, ``turn_id``, ``image_caption``, ``image_url``. Turns
without ``conversation_id`` belong to a conversation named after the file.

JSON may be a list of turn objects, an object ``{"conversation_id", "turns": [...],
"speakers"?, "qa"?, "meta"?}``, or a list of such objects. JSONL holds one turn object per
line and CSV one turn per row under a header naming the columns (``speaker`` and ``text``
are required). JSONL and CSV are streamed line by line.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from memory_core.ingest.builder import ConversationBuilder, parse_qa, warn_unmatched
from memory_core.ingest.common import (
    Context,
    get_dict,
    get_id,
    get_int,
    get_list,
    get_str,
    key_path,
    kind,
    opt_str,
    show,
)
from memory_core.ingest.reading import Opened, iter_lines, load_json, max_bytes, open_text
from memory_core.models import Conversation

FIELDS = ("conversation_id", "session", "session_time", "speaker", "text", "turn_id",
          "image_caption", "image_url")
REQUIRED_COLUMNS = ("speaker", "text")


class _Rows:
    """Turn rows grouped by conversation id, conversations in first-seen order."""

    def __init__(self, ctx: Context, fmt: str) -> None:
        self.ctx = ctx
        self.fmt = fmt
        self.builders: dict[str, ConversationBuilder] = {}

    def add(self, row: Mapping[str, Any], where: str, field: Callable[[str], str],
            default_id: str) -> None:
        ctx = self.ctx
        raw_id = row.get("conversation_id")
        conv_id = default_id if raw_id in (None, "") else get_id(
            ctx, raw_id, field("conversation_id"), "conversation_id")
        raw_session = row.get("session")
        session = 1 if raw_session in (None, "") else get_int(ctx, raw_session, field("session"))
        if "speaker" not in row or row["speaker"] is None:
            raise ctx.error(field("speaker"), "missing")
        speaker = get_str(ctx, row["speaker"], field("speaker"))
        raw_turn_id = row.get("turn_id")
        turn_id = None if raw_turn_id in (None, "") else get_id(ctx, raw_turn_id, field("turn_id"), "turn_id")
        builder = self.builders.get(conv_id)
        if builder is None:
            builder = self.builders[conv_id] = ConversationBuilder(ctx, conv_id, self.fmt, where)
        builder.session(session, opt_str(ctx, row.get("session_time"), field("session_time")),
                        field("session_time"))
        builder.add_turn(
            session, speaker, opt_str(ctx, row.get("text"), field("text")), where=where,
            caption=opt_str(ctx, row.get("image_caption"), field("image_caption")),
            url=opt_str(ctx, row.get("image_url"), field("image_url")), turn_id=turn_id,
        )

    def build(self) -> list[Conversation]:
        return [b.build() for b in self.builders.values()]


def _in_json(where: str) -> Callable[[str], str]:
    return lambda name: key_path(where, name)


def _in_line(where: str) -> Callable[[str], str]:
    return lambda name: f"{where}, {key_path('$', name)}"


def _in_row(where: str) -> Callable[[str], str]:
    return lambda name: f"{where}, column {name}"


# --------------------------------------------------------------------------- JSON
def parse_json(data: Any, ctx: Context) -> list[Conversation]:
    if isinstance(data, dict):
        if "turns" in data:
            return [_conversation_object(ctx, data, "$", ctx.stem)]
        if "speaker" in data:
            data = [data]  # a single turn object
        else:
            raise ctx.error("$", "expected turn objects or {\"conversation_id\", \"turns\": [...]}; "
                                 f"found an object with keys {show(sorted(data)[:6])}")
    if not isinstance(data, list):
        raise ctx.error("$", f"expected a list of turns or a conversation object, got {kind(data)}")
    if not data:
        raise ctx.error("$", "empty list: no turns")
    if isinstance(data[0], dict) and "turns" in data[0]:
        return _conversation_objects(ctx, data)
    rows = _Rows(ctx, "json")
    for i, value in enumerate(data):
        where = f"$[{i}]"
        turn = get_dict(ctx, value, where, "a turn object")
        rows.add(turn, where, _in_json(where), ctx.stem)
    return rows.build()


def _conversation_objects(ctx: Context, items: list[Any]) -> list[Conversation]:
    out: list[Conversation] = []
    seen: dict[str, str] = {}
    for i, value in enumerate(items):
        where = f"$[{i}]"
        obj = get_dict(ctx, value, where, "a conversation object")
        default = ctx.stem if len(items) == 1 else f"{ctx.stem}-{i + 1}"
        conv = _conversation_object(ctx, obj, where, default)
        if conv.id in seen:
            raise ctx.error(key_path(where, "conversation_id"),
                            f"duplicate conversation id {show(conv.id)} (first at {seen[conv.id]})")
        seen[conv.id] = where
        out.append(conv)
    return out


def _conversation_object(ctx: Context, obj: dict[str, Any], where: str, default_id: str) -> Conversation:
    raw_id = obj.get("conversation_id")
    conv_id = default_id if raw_id in (None, "") else get_id(
        ctx, raw_id, key_path(where, "conversation_id"), "conversation_id")
    turns_where = key_path(where, "turns")
    turns = get_list(ctx, obj.get("turns"), turns_where, "a list of turns")
    rows = _Rows(ctx, "json")
    for j, value in enumerate(turns):
        tw = f"{turns_where}[{j}]"
        turn = get_dict(ctx, value, tw, "a turn object")
        own = turn.get("conversation_id")
        if own not in (None, "") and str(own).strip() != conv_id:
            raise ctx.error(key_path(tw, "conversation_id"),
                            f"{show(own)} differs from the conversation's id {show(conv_id)}")
        rows.add({**turn, "conversation_id": conv_id}, tw, _in_json(tw), conv_id)
    if not rows.builders:
        raise ctx.error(turns_where, "conversation has no turns")
    builder = rows.builders[conv_id]
    speakers_where = key_path(where, "speakers")
    speakers = [get_str(ctx, s, f"{speakers_where}[{k}]")
                for k, s in enumerate(get_list(ctx, obj.get("speakers") or [], speakers_where))]
    qa_where = key_path(where, "qa")
    qa, unmatched = parse_qa(ctx, get_list(ctx, obj.get("qa") or [], qa_where), qa_where, builder.turn_ids)
    meta = dict(get_dict(ctx, obj.get("meta") or {}, key_path(where, "meta")))
    if unmatched:
        meta["unmatched_evidence"] = unmatched
        warn_unmatched(ctx, qa_where, conv_id, unmatched)
    return builder.build(speakers=speakers, qa=qa, meta=meta)


# --------------------------------------------------------------------------- JSONL
def parse_jsonl(source: Opened, ctx: Context) -> list[Conversation]:
    rows = _Rows(ctx, "jsonl")
    for number, line in iter_lines(source):
        if not line.strip():
            continue
        where = f"line {number}"
        value = load_json(line, ctx, line=number)
        turn = get_dict(ctx, value, where, "a turn object")
        rows.add(turn, where, _in_line(where), ctx.stem)
    if not rows.builders:
        raise ctx.error("", "no turns")
    return rows.build()


# --------------------------------------------------------------------------- CSV
def parse_csv(source: Opened, ctx: Context) -> list[Conversation]:
    csv.field_size_limit(max(csv.field_size_limit(), max_bytes(ctx)))
    rows = _Rows(ctx, "csv")
    with open_text(source, newline="") as f:
        reader = csv.reader(f)
        header: list[str] | None = None
        for line, record in _records(reader, ctx):
            if not any(cell.strip() for cell in record):
                continue
            if header is None:
                header = _header(ctx, record, line)
                continue
            where = f"line {line}"
            if len(record) != len(header):
                raise ctx.error(where, f"expected {len(header)} fields (as in the header), got {len(record)}")
            row = {name: value for name, value in zip(header, record, strict=True) if name in FIELDS}
            rows.add(row, where, _in_row(where), ctx.stem)
    if header is None:
        raise ctx.error("", "no CSV header")
    if not rows.builders:
        raise ctx.error("", "no turns (only a header)")
    return rows.build()


def _records(reader: Any, ctx: Context) -> Iterator[tuple[int, list[str]]]:
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ctx.error(f"line {reader.line_num}", f"bad CSV: {exc}") from None
        yield reader.line_num, record


def _header(ctx: Context, record: list[str], line: int) -> list[str]:
    names = [cell.strip().lower() for cell in record]
    where = f"line {line} (header)"
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        found = ", ".join(show(n) for n in names[:10])
        raise ctx.error(where, f"missing CSV column(s) {', '.join(missing)} (found: {found})")
    duplicates = sorted({n for n in names if n and names.count(n) > 1})
    if duplicates:
        raise ctx.error(where, f"duplicate CSV column(s) {', '.join(duplicates)}")
    return names
