"""A Claude.ai data export (``conversations.json``): every chat becomes one session.

The export is a list of chats ``{"uuid", "name", "created_at", "updated_at", "account"?,
"chat_messages": [{"uuid", "sender": "human" | "assistant", "text", "content": [{"type":
"text", "text"} | {"type": "thinking" | "tool_use" | "tool_result" | ..., ...}], "created_at",
"attachments": [{"file_name", "file_type", "file_size", "extracted_content"}], "files":
[{"file_name"}]}]}`` (one chat object alone is read too). As for ChatGPT (``ingest.chats``) the
whole file is one conversation between ``user`` (Claude's ``human``) and ``assistant``, named
after the file (``conversations.json`` -> ``claude``); chats are sessions in the order of
their ``created_at`` (ISO 8601, kept in UTC; a chat without one takes its first message's).

A message's text is its ``text`` content blocks joined by a blank line; an export without
``content`` blocks gives the message's ``text``. Attached files are named in the turn's
caption (``attached: notes.txt, photo.png``); their contents are not imported. Skipped and
counted by type in one warning: other blocks (``thinking``, ``tool_use``, ``tool_result``,
...), messages from other senders, and messages with neither text nor attachment. Chat
names and uuids are kept in ``meta["chats"]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from memory_core.ingest.chats import Chat, assemble, iso_time, messages, said
from memory_core.ingest.common import (
    Context,
    first_item,
    get_dict,
    get_list,
    get_str,
    key_path,
    kind,
    opt_str,
)
from memory_core.models import Conversation

FORMAT = "claude"
_SENDERS = {"human": "user", "user": "user", "assistant": "assistant"}


def looks_like(data: Any) -> bool:
    first = first_item(data)
    return isinstance(first, dict) and isinstance(first.get("chat_messages"), list)


def parse(chats: Iterable[tuple[str, Any]], ctx: Context) -> Conversation:
    """The export's chats (``(json path, chat)`` pairs, streamed or not) as one conversation."""
    return assemble(ctx, chats, _chat, fmt=FORMAT, app="claude", tally=(
        "attachments", "attached file(s) are named in their turn's caption; their contents were "
                       "not imported"))


def _chat(ctx: Context, value: Any, where: str, position: int, skipped: Counter[str]) -> Chat:
    chat = get_dict(ctx, value, where, "a chat object")
    title = opt_str(ctx, chat.get("name"), key_path(where, "name")) or "(untitled)"
    chat_id = opt_str(ctx, chat.get("uuid"), key_path(where, "uuid"), numbers=True)
    messages_where = key_path(where, "chat_messages")
    listed = get_list(ctx, messages(ctx, chat, "chat_messages", where), messages_where,
                      "a list of messages")
    time = iso_time(ctx, chat.get("created_at"), key_path(where, "created_at"))
    time_key = "created_at"
    draft = Chat(where, position, title, chat_id, time, time_key, extra={"attachments": 0})
    for i, raw in enumerate(listed):
        message_where = f"{messages_where}[{i}]"
        message = get_dict(ctx, raw, message_where, "a message object")
        if draft.time is None and "created_at" in message:
            draft.time = iso_time(ctx, message["created_at"], key_path(message_where, "created_at"))
            draft.time_key = f"chat_messages[{i}].created_at"
        turn = _message(ctx, message, message_where, skipped, draft)
        if turn is not None:
            draft.turns.append((*turn, message_where))
    return draft


def _message(ctx: Context, message: dict[str, Any], where: str, skipped: Counter[str],
             draft: Chat) -> tuple[str, str | None, str | None] | None:
    """(speaker, text, caption) of a kept message, or None (counted in ``skipped``)."""
    sender = get_str(ctx, message.get("sender"), key_path(where, "sender"))
    speaker = _SENDERS.get(sender)
    if speaker is None:
        skipped[f"{sender or 'unnamed'} message(s)"] += 1
        return None
    texts = _blocks(ctx, message, where, skipped)
    names = _attached(ctx, message, where)
    draft.extra["attachments"] += len(names)
    return said(speaker, texts, f"attached: {', '.join(names)}" if names else None, skipped)


def _blocks(ctx: Context, message: dict[str, Any], where: str, skipped: Counter[str]) -> list[str]:
    """The text of the ``text`` blocks (other blocks counted), else the message's ``text``."""
    content_where = key_path(where, "content")
    blocks = get_list(ctx, message.get("content") or [], content_where, "a list of content blocks")
    if not blocks:
        text = opt_str(ctx, message.get("text"), key_path(where, "text"))
        return [text] if text else []
    texts: list[str] = []
    for j, block in enumerate(blocks):
        block_where = f"{content_where}[{j}]"
        if not isinstance(block, dict):
            skipped[f"{kind(block)} block(s)"] += 1
            continue
        btype = block.get("type")
        if btype == "text":
            text = opt_str(ctx, block.get("text"), key_path(block_where, "text"))
            if text:
                texts.append(text)
            continue
        skipped[f"{btype if isinstance(btype, str) else 'unknown'} block(s)"] += 1
    return texts


def _attached(ctx: Context, message: dict[str, Any], where: str) -> list[str]:
    """The names of the files attached to a message (attachments and files, without repeats)."""
    names: dict[str, None] = {}
    for key in ("attachments", "files"):
        items_where = key_path(where, key)
        for k, item in enumerate(get_list(ctx, message.get(key) or [], items_where)):
            if isinstance(item, dict):
                name = opt_str(ctx, item.get("file_name"), key_path(f"{items_where}[{k}]", "file_name"))
                if name:
                    names.setdefault(name.strip(), None)
    return list(names)
