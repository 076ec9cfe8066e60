"""A ChatGPT data export (``conversations.json``): every chat becomes one session.

The export is a list of chats ``{"title", "create_time", "mapping": {node id: {"message":
{"author": {"role"}, "content": {"content_type", "parts"}, "create_time", "recipient"?,
"metadata"?} | null, "parent": id | null, "children": [ids]}}, "current_node"}``. The whole
file is one conversation between ``user`` and ``assistant``, named after the file
(``conversations.json`` -> ``chatgpt``). Chats are sessions in the order of their
``create_time`` (chats without one last, in file order); a session's time is its chat's
``create_time`` (UTC). A chat is a tree: a message edited or regenerated starts a branch. Only
the branch shown last is imported — the path from ``current_node`` up through the
``parent`` links (without ``current_node``, the newest child at each step from the root).

Kept: user and assistant messages with text, whatever their ``content_type``: the string
``parts`` (joined by a blank line; ``text`` and ``multimodal_text`` hold them), else a content
``text`` string (``code`` shown to the user), an audio part's transcript, a part's ``text``, and
a generated image as a caption from its DALL·E prompt. Reasoning (``thoughts``,
``reasoning_recap``) and stored context (``user_editable_context``, ``model_editable_context``)
are never turns. Skipped and counted by type in one warning: system and tool messages,
assistant messages addressed to a tool (``recipient`` other than ``all``), hidden messages,
content without text (by its ``content_type``), images without a prompt, and messages left
without text. Chats with nothing kept are skipped with a warning; a file with no chat left is
refused in one line that gives the counts of what was skipped. Titles and chat ids are kept in
``meta["chats"]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from memory_core.ingest.chats import SPEAKERS, Chat, assemble, messages, said, unix_time
from memory_core.ingest.common import (
    Context,
    first_item,
    get_dict,
    get_list,
    get_str,
    key_path,
    kind,
    opt_str,
    show,
)
from memory_core.models import Conversation

FORMAT = "chatgpt"
# content types that never hold what was said in the chat (the model's reasoning, stored context)
_NOT_SAID = ("thoughts", "reasoning_recap", "user_editable_context", "model_editable_context")


def looks_like(data: Any) -> bool:
    first = first_item(data)
    return isinstance(first, dict) and isinstance(first.get("mapping"), dict) and (
        "current_node" in first or "title" in first)


def parse(chats: Iterable[tuple[str, Any]], ctx: Context) -> Conversation:
    """The export's chats (``(json path, chat)`` pairs, streamed or not) as one conversation."""
    return assemble(ctx, chats, _chat, fmt=FORMAT, app="chatgpt", tally=(
        "other_branch_messages", "message(s) on branches not shown last (edits, regenerations) were "
                                 "not imported"))


# --------------------------------------------------------------------------- one chat
def _chat(ctx: Context, value: Any, where: str, position: int, skipped: Counter[str]) -> Chat:
    chat = get_dict(ctx, value, where, "a chat object")
    title = opt_str(ctx, chat.get("title"), key_path(where, "title")) or "(untitled)"
    chat_id = opt_str(ctx, chat.get("conversation_id", chat.get("id")), key_path(where, "id"),
                      numbers=True)
    draft = Chat(where, position, title, chat_id,
                 unix_time(ctx, chat.get("create_time"), key_path(where, "create_time")), "create_time")
    mapping_where = key_path(where, "mapping")
    mapping = get_dict(ctx, messages(ctx, chat, "mapping", where), mapping_where,
                       "an object of message nodes")
    nodes = {nid: get_dict(ctx, node, key_path(mapping_where, nid), "a message node")
             for nid, node in mapping.items()}
    path = _branch(ctx, chat, nodes, where, mapping_where)
    draft.extra["other_branch_messages"] = sum(1 for nid, node in nodes.items()
                                               if nid not in path and isinstance(node.get("message"), dict))
    for nid in path:
        node_where = key_path(mapping_where, nid)
        message = nodes[nid].get("message")
        if message is None:
            continue
        turn = _message(ctx, message, key_path(node_where, "message"), skipped)
        if turn is not None:
            draft.turns.append((*turn, key_path(node_where, "message")))
    return draft


def _branch(ctx: Context, chat: dict[str, Any], nodes: dict[str, dict[str, Any]], where: str,
            mapping_where: str) -> list[str]:
    """Node ids from the root to the current node, checked for dangling and cyclic links."""
    current_where = key_path(where, "current_node")
    current = chat.get("current_node")
    if current is None:
        current = _newest_leaf(ctx, nodes, mapping_where)
        if current is None:
            return []
        ctx.warn(current_where, "missing; followed the newest reply at each step")
    current = get_str(ctx, current, current_where)
    if current not in nodes:
        raise ctx.error(current_where, f"names no node of the mapping: {show(current)}")
    path: list[str] = []
    seen: set[str] = set()
    nid: str | None = current
    while nid is not None:
        seen.add(nid)
        path.append(nid)
        parent_where = key_path(key_path(mapping_where, nid), "parent")
        parent = nodes[nid].get("parent")
        if parent is None:
            break
        parent = get_str(ctx, parent, parent_where)
        if parent not in nodes:
            raise ctx.error(parent_where, f"names no node of the mapping: {show(parent)}")
        if parent in seen:
            raise ctx.error(parent_where, f"parent links form a cycle (back to {show(parent)})")
        nid = parent
    path.reverse()
    return path


def _newest_leaf(ctx: Context, nodes: dict[str, dict[str, Any]], mapping_where: str) -> str | None:
    roots = [nid for nid, node in nodes.items() if node.get("parent") is None]
    if not roots:
        if nodes:
            raise ctx.error(mapping_where, "no root node (every node has a parent)")
        return None
    nid = roots[0]
    seen = {nid}
    while True:
        children_where = key_path(key_path(mapping_where, nid), "children")
        children = get_list(ctx, nodes[nid].get("children") or [], children_where)
        known = [get_str(ctx, c, f"{children_where}[{i}]") for i, c in enumerate(children)]
        known = [c for c in known if c in nodes]
        if not known:
            return nid
        nid = known[-1]
        if nid in seen:
            raise ctx.error(children_where, "child links form a cycle")
        seen.add(nid)


def _message(ctx: Context, value: Any, where: str,
             skipped: Counter[str]) -> tuple[str, str | None, str | None] | None:
    """(speaker, text, caption) of a kept message, or None (counted in ``skipped``)."""
    message = get_dict(ctx, value, where, "a message object")
    author_where = key_path(where, "author")
    author = get_dict(ctx, message.get("author"), author_where, "an author object")
    role = get_str(ctx, author.get("role"), key_path(author_where, "role"))
    if role not in SPEAKERS:
        skipped[f"{role} message(s)"] += 1
        return None
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
        skipped["hidden message(s)"] += 1
        return None
    recipient = message.get("recipient")
    if role == "assistant" and isinstance(recipient, str) and recipient not in ("all", ""):
        skipped["call(s) to a tool"] += 1
        return None
    content = message.get("content")
    if not isinstance(content, dict):
        skipped["message(s) without a content object"] += 1
        return None
    content_where = key_path(where, "content")
    ctype = content.get("content_type", "text")
    if not isinstance(ctype, str):
        ctype = "unnamed content"
    if ctype in _NOT_SAID:
        skipped[f"{ctype} part(s)"] += 1
        return None
    parts_where = key_path(content_where, "parts")
    parts = get_list(ctx, content.get("parts") or [], parts_where, "a list of parts")
    texts: list[str] = []
    captions: list[str] = []
    for i, part in enumerate(parts):
        part_where = f"{parts_where}[{i}]"
        if isinstance(part, str):
            if part.strip():
                texts.append(get_str(ctx, part, part_where))
        elif isinstance(part, dict):
            _part(ctx, part, part_where, texts, captions, skipped)
        elif part is not None:
            skipped[f"{kind(part)} part(s)"] += 1
    if not texts and not captions and not parts:
        raw = content.get("text")
        body = opt_str(ctx, raw, key_path(content_where, "text")) if isinstance(raw, str) else None
        if body is None:
            skipped[f"{ctype} part(s)"] += 1
            return None
        texts.append(body)
    return said(role, texts, "; ".join(captions) or None, skipped)


def _part(ctx: Context, part: dict[str, Any], where: str, texts: list[str], captions: list[str],
          skipped: Counter[str]) -> None:
    ptype = part.get("content_type")
    if ptype == "image_asset_pointer":
        metadata = part.get("metadata")
        dalle = metadata.get("dalle") if isinstance(metadata, dict) else None
        prompt = dalle.get("prompt") if isinstance(dalle, dict) else None
        if isinstance(prompt, str) and prompt.strip():
            captions.append(f"generated image: {get_str(ctx, prompt, where).strip()}")
            return
        skipped["image(s) without a caption"] += 1
        return
    text = part.get("text")  # an audio transcription, a text part
    if isinstance(text, str) and text.strip():
        texts.append(get_str(ctx, text, key_path(where, "text")))
        return
    skipped[f"{ptype if isinstance(ptype, str) else 'unknown'} part(s)"] += 1
