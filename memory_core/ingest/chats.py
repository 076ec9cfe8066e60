"""What the chat-app exports share (ChatGPT, Claude.ai): many chats, one conversation.

An export is a list of chats between ``user`` and ``assistant``. The whole file becomes one
conversation named after the file (``conversations.json`` -> the app's name); each chat with
something kept is a session, in the order of its creation time (chats without one last, in
file order), dated by it. What a reader leaves out is counted in ``skipped`` (by kind) and
reported in one warning; chats left without text are listed in another. A file with no chat
left is refused in one line that carries those counts, so the refusal says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memory_core.ingest.builder import ConversationBuilder
from memory_core.ingest.common import Context, key_path, kind, listed, required, show
from memory_core.models import Conversation

SPEAKERS = ("user", "assistant")


@dataclass
class Chat:
    """One chat as read: its turns ``(speaker, text, caption, where)`` in order."""

    where: str
    position: int
    title: str
    chat_id: str | None
    time: datetime | None
    time_key: str
    turns: list[tuple[str, str | None, str | None, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # kept in meta["chats"]


ReadChat = Callable[[Context, Any, str, int, Counter[str]], Chat]


def conversation_id(ctx: Context, app: str) -> str:
    return app if ctx.stem.lower() == "conversations" else ctx.stem


def assemble(ctx: Context, chats: Iterable[tuple[str, Any]], read: ReadChat, *, fmt: str, app: str,
             tally: tuple[str, str] | None = None) -> Conversation:
    """Read every chat with ``read`` and build the one conversation (or refuse the file).

    ``tally`` is ``(key, note)``: the chats' ``extra[key]`` counts are summed and, if any, reported
    in one warning ``"<sum> <note>"``.
    """
    skipped: Counter[str] = Counter()
    drafts: list[Chat] = []
    empty: list[str] = []
    count = 0
    for position, (where, value) in enumerate(chats):
        count += 1
        chat = read(ctx, value, where, position, skipped)
        if chat.turns:
            drafts.append(chat)
        else:
            empty.append(f"{where} {show(chat.title)}")
    if count == 0:
        raise ctx.error("$", "empty list: no chats")
    parts = ", ".join(f"{n} {what}" for what, n in skipped.most_common())
    if not drafts:
        why = f"; skipped {parts}" if parts else ""
        raise ctx.error("$", f"no chat has user or assistant text ({count} chat(s){why})")
    drafts.sort(key=lambda c: (c.time is None, c.time or datetime.min, c.position))
    builder = ConversationBuilder(ctx, conversation_id(ctx, app), fmt, "$")
    meta_chats: list[dict[str, Any]] = []
    for number, chat in enumerate(drafts, start=1):
        time_text = chat.time.isoformat(sep=" ", timespec="seconds") if chat.time else ""
        builder.session(number, time_text, key_path(chat.where, chat.time_key), time=chat.time,
                        resolved=True)
        for speaker, text, caption, where in chat.turns:
            builder.add_turn(number, speaker, text, where=where, caption=caption)
        meta_chats.append({"session": number, "title": chat.title, "id": chat.chat_id, **chat.extra})
    if empty:
        ctx.warn("", f"{len(empty)} chat(s) with no user or assistant text were skipped: "
                     f"{listed(empty, 5)}")
    if skipped:
        ctx.warn("", f"skipped {sum(skipped.values())} message part(s): {parts}")
    conv = builder.build(speakers=SPEAKERS, meta={"chats": meta_chats})
    counted = sum(c.extra[tally[0]] for c in drafts) if tally else 0
    if tally and counted:
        ctx.warn("", f"{counted} {tally[1]}")
    return conv


def messages(ctx: Context, chat: dict[str, Any], key: str, where: str) -> Any:
    """The chat's messages (under ``key``), refused in one line when absent."""
    return required(ctx, chat, key, where, "missing (a chat's messages)")


def said(speaker: str, texts: list[str], caption: str | None,
         skipped: Counter[str]) -> tuple[str, str | None, str | None] | None:
    """(speaker, text, caption) of a message with text or a caption; else None, counted."""
    text = "\n\n".join(texts) or None
    if text is None and caption is None:
        skipped["message(s) without text"] += 1
        return None
    return speaker, text, caption


def unix_time(ctx: Context, value: Any, where: str) -> datetime | None:
    """A Unix time in seconds as a naive UTC datetime (None: no time, with a warning if bad)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        ctx.warn(where, f"expected a Unix time in seconds, got {kind(value)} {show(value)}; no time")
        return None
    try:
        return datetime.fromtimestamp(float(value), UTC).replace(tzinfo=None, microsecond=0)
    except (OverflowError, OSError, ValueError):
        ctx.warn(where, f"cannot read the time {show(value)}; no time")
        return None


def iso_time(ctx: Context, value: Any, where: str) -> datetime | None:
    """An ISO 8601 time (``2024-05-01T09:30:00.123456Z``) as a naive UTC datetime."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        ctx.warn(where, f"expected an ISO 8601 time, got {kind(value)} {show(value)}; no time")
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        ctx.warn(where, f"cannot read the time {show(value)}; no time")
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed.replace(microsecond=0)
