"""REALTALK: a chat file as its authors publish it (``Chat_<n>_<name>_<name>.json``).

A file is one chat object (a list of them is read too): ``{"name": {"speaker_1", "speaker_2"},
"session_N": [{"clean_text", "speaker", "date_time": "DD.MM.YYYY, HH:MM:SS", "dia_id":
"D<s>:<t>", "img_url": [...], "img_file": [...], "blip_caption"?}], "session_N_date_time",
"events_session_N", "qa": [{"question", "answer", "evidence", "category"}]}``. The id is
``realtalk-<n>`` from the file name (else the file name).

Sessions are grouped by the D number of each turn's ``dia_id``, in D order — not by the
``session_N`` key, which some files renumber (a warning names those). A session's date is its
first turn's ``date_time``; every turn's own date is kept in ``meta["turn_times"]``.
``clean_text`` is the turn's text, the first ``img_url`` its image url and ``blip_caption`` its
caption. Evidence strings are split on ``;`` and ``,`` and ranges (``D12:3-D12:5``) expanded.
A question whose evidence names a turn that is not in the file (or names none) is set aside, with a warning,
in ``meta["qa_unresolved"]`` (with its index in the file's list); the others become QA, their
``qid`` the position among them (as the bench's converted files number them). Categories:
1 multi-hop, 2 temporal, 3 commonsense. ``events_session_N`` go to ``meta["events"]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from memory_core.ids import canonical_turn_id, evidence_tokens
from memory_core.ingest.builder import (
    ConversationBuilder,
    parse_qa,
    question_items,
    read_date,
    warn_set_aside,
)
from memory_core.ingest.common import (
    SESSION_KEY,
    Context,
    first_item,
    get_dict,
    get_id,
    get_list,
    key_path,
    listed,
    named_speakers,
    numbered,
    opt_str,
    session_keys,
    show,
    top_level_items,
    turn_fields,
)
from memory_core.models import Conversation

FORMAT = "realtalk"
_DIA = re.compile(r"^D:?(\d+):(\d+)$")
_RANGE = re.compile(r"^D:?(\d+):(\d+)\s*-\s*(?:D:?(\d+):)?(\d+)$")
_FILE = re.compile(r"^chat_(\d+)(?:_|$)", re.IGNORECASE)
_DATE = "%d.%m.%Y, %H:%M:%S"
_MAX_RANGE = 200  # turns one evidence range may name


def looks_like(data: Any) -> bool:
    first = first_item(data)
    if not isinstance(first, dict):
        return False
    name = first.get("name")
    if isinstance(name, dict) and "speaker_1" in name:
        return True
    for key, value in first.items():
        if SESSION_KEY.match(key) and isinstance(value, list) and value:
            return isinstance(value[0], dict) and "clean_text" in value[0]
    return False


def parse(data: Any, ctx: Context) -> list[Conversation]:
    chats = top_level_items(ctx, data, noun="REALTALK chats", expected="a REALTALK chat object")
    base = f"realtalk-{int(m.group(1))}" if (m := _FILE.match(ctx.stem)) else ctx.stem
    return [_chat(ctx, value, where, numbered(base, i, len(chats)))
            for i, (where, value) in enumerate(chats)]


def _chat(ctx: Context, value: Any, where: str, conv_id: str) -> Conversation:
    chat = get_dict(ctx, value, where, "a REALTALK chat object")
    builder = ConversationBuilder(ctx, conv_id, FORMAT, where)
    keys = session_keys(chat)
    if not keys:
        raise ctx.error(where, "no session_N lists of turns")
    turn_times: dict[str, str] = {}
    dated: set[int] = set()
    renumbered: list[str] = []
    for number, key in keys:
        turns_where = key_path(where, key)
        for j, raw in enumerate(get_list(ctx, chat[key], turns_where, "a list of turns")):
            session = _turn(ctx, builder, raw, f"{turns_where}[{j}]", turn_times, dated)
            if session != number and key not in renumbered:
                renumbered.append(key)
    if renumbered:
        ctx.warn(where, f"{', '.join(renumbered[:5])}{' …' if len(renumbered) > 5 else ''} hold turns "
                        "of other D numbers: sessions follow the dia_id's D number")
    names = get_dict(ctx, chat.get("name") or {}, key_path(where, "name"))
    speakers = named_speakers(ctx, names, ("speaker_1", "speaker_2"), key_path(where, "name"))
    qa_where = key_path(where, "qa")
    resolved, unresolved = _questions(ctx, get_list(ctx, chat.get("qa") or [], qa_where), qa_where,
                                      builder.turn_ids)
    qa, _ = parse_qa(ctx, [item for _, item in resolved], qa_where, builder.turn_ids)
    meta: dict[str, Any] = {"turn_times": turn_times}
    events = {k: v for k, v in chat.items() if k.startswith("events_session_")}
    if events:
        meta["events"] = events
    if unresolved:
        meta["qa_unresolved"] = unresolved
        named = [f"qa[{u['index']}] {', '.join(show(t) for t in u['unmatched'])}" for u in unresolved]
        warn_set_aside(ctx, qa_where, len(unresolved), "whose evidence is no turn of the file",
                       listed(named, 4, "; "))
    return builder.build(speakers=speakers, qa=qa, meta=meta)


def _turn(ctx: Context, builder: ConversationBuilder, value: Any, where: str,
          turn_times: dict[str, str], dated: set[int]) -> int:
    """Add one turn to the session of its D number; return that number."""
    turn = get_dict(ctx, value, where, "a turn object")
    dia_where = key_path(where, "dia_id")
    if turn.get("dia_id") is None:
        raise ctx.error(dia_where, "missing (REALTALK turns are keyed by their dia_id 'D<session>:<turn>')")
    raw_id = get_id(ctx, turn["dia_id"], dia_where, "dia_id")
    m = _DIA.match(raw_id)
    if m is None:
        raise ctx.error(dia_where, f"expected 'D<session>:<turn>', got {show(raw_id)}")
    session, turn_id = int(m.group(1)), canonical_turn_id(raw_id)
    if session < 1:
        raise ctx.error(dia_where, "session numbers start at 1")
    speaker, text, caption = turn_fields(ctx, turn, where, "clean_text" if "clean_text" in turn else "text")
    urls = turn.get("img_url")
    url = None
    if isinstance(urls, list) and urls:
        url = opt_str(ctx, urls[0], key_path(where, "img_url") + "[0]")
    elif isinstance(urls, str):
        url = opt_str(ctx, urls, key_path(where, "img_url"))
    date_where = key_path(where, "date_time")
    date_text = opt_str(ctx, turn.get("date_time"), date_where)
    date = read_date(date_text, _DATE) if date_text else None
    if date_text and date is None:
        ctx.warn(date_where, f"cannot read the date {show(date_text)}")
    if session not in dated:  # a session's date is its first turn's
        dated.add(session)
        builder.session(session, date_text or "", date_where, time=date, resolved=True)
    builder.add_turn(session, speaker, text, where=where, caption=caption, url=url, turn_id=turn_id,
                     keep_empty=True)
    if date is not None:
        turn_times[turn_id] = date.isoformat(sep=" ")
    return session


# --------------------------------------------------------------------------- questions
def _questions(ctx: Context, items: list[Any], where: str,
               known: set[str]) -> tuple[list[tuple[int, dict[str, Any]]], list[dict[str, Any]]]:
    """(index, item with its evidence expanded) of the questions whose evidence all names turns,
    and the set-aside ones (with their index and the tokens naming no turn)."""
    resolved: list[tuple[int, dict[str, Any]]] = []
    unresolved: list[dict[str, Any]] = []
    for i, qw, item in question_items(ctx, items, where):
        raw = item.get("evidence") or []
        raw_list = [raw] if isinstance(raw, str) else get_list(ctx, raw, key_path(qw, "evidence"))
        ids, missing = _expand(str(e) for e in raw_list)
        missing += [t for t in ids if t not in known]
        if missing or not ids:
            unresolved.append({"index": i, **item, "unmatched": missing or ["(no evidence)"]})
        else:
            resolved.append((i, {**item, "evidence": ids}))
    return resolved, unresolved


def _expand(entries: Iterable[str]) -> tuple[list[str], list[str]]:
    """Evidence entries as turn ids: split on ``;``/``,``, ranges expanded (ids, unreadable)."""
    ids: list[str] = []
    bad: list[str] = []
    for entry in entries:
        for token in (t.strip().rstrip(".") for t in re.split(r"[;,]", entry)):
            if not token:
                continue
            r = _RANGE.match(token)
            if r is not None and (r.group(3) is None or r.group(3) == r.group(1)):
                first, last = int(r.group(2)), int(r.group(4))
                if first <= last <= first + _MAX_RANGE:
                    ids.extend(f"D{int(r.group(1))}:{n}" for n in range(first, last + 1))
                    continue
            parts = evidence_tokens(token)
            for part in parts:
                fixed = canonical_turn_id(part)
                (ids if _DIA.match(part) else bad).append(fixed)
    return list(dict.fromkeys(ids)), bad
