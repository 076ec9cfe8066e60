"""Claude.ai data export: one conversation, a session per chat, text blocks kept, the rest counted."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from memory_core.config import Settings
from memory_core.errors import IngestError
from memory_core.ingest import detect_format, load_file, stream_file
from memory_core.services import Services


def message(sender: str, *blocks: dict[str, Any], text: str | None = None, created: str = "",
            attachments: list[dict[str, Any]] | None = None, files: list[dict[str, Any]] | None = None,
            content: bool = True) -> dict[str, Any]:
    """A chat message as the export writes it (``content=False``: an older export, text only)."""
    joined = "\n\n".join(b["text"] for b in blocks if b.get("type") == "text")
    value: dict[str, Any] = {"uuid": f"m-{abs(hash((sender, joined))) % 10**8}", "sender": sender,
                             "text": text if text is not None else joined,
                             "created_at": created or "2024-05-02T08:15:00.000000Z",
                             "updated_at": created or "2024-05-02T08:15:00.000000Z",
                             "attachments": attachments or [], "files": files or []}
    if content:
        value["content"] = list(blocks)
    return value


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "start_timestamp": None, "stop_timestamp": None, "citations": []}


def chat(name: str, created: str | None, *messages: dict[str, Any]) -> dict[str, Any]:
    return {"uuid": f"uuid-{name}", "name": name, "created_at": created, "updated_at": created,
            "account": {"uuid": "acc-1"}, "chat_messages": list(messages)}


def export() -> list[dict[str, Any]]:
    bread = chat(
        "Sourdough", "2024-05-02T08:15:00.123456Z",
        message("human", say("My starter smells of acetone."),
                attachments=[{"file_name": "feeding-log.txt", "file_type": "txt", "file_size": 812,
                              "extracted_content": "day 1: 50 g flour"}],
                files=[{"file_name": "jar.jpg"}]),
        message("assistant", {"type": "thinking", "thinking": "Acetone means hungry."},
                say("It is hungry."), {"type": "tool_use", "name": "web_search", "input": {"q": "x"}},
                {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "…"}]},
                say("Feed it twice a day.")),
        message("human", files=[{"file_name": "bubbles.png"}]),
        message("assistant", {"type": "tool_use", "name": "artifacts", "input": {}},
                text="```\nThis block is not supported on your current device yet.\n```"),
    )
    older = chat("Bikes", "2024-03-10T19:00:00Z",
                 message("human", text="Which tyre pressure for gravel?", content=False),
                 message("assistant", text="Around 35 psi.", content=False),
                 message("system", say("Conversation compacted.")))
    empty = chat("New chat", "2024-06-01T10:00:00Z")
    return [bread, empty, older]


def test_an_export_is_one_conversation_with_a_session_per_chat_in_time_order(write):
    path = write("conversations.json", export())
    assert detect_format(path) == "claude"
    loaded = load_file(path)
    assert loaded.format == "claude"
    (conv,) = loaded.conversations
    assert conv.id == "claude" and conv.speakers == ("user", "assistant")
    bikes, bread = conv.sessions
    assert (bikes.index, bikes.time) == (1, datetime(2024, 3, 10, 19, 0))
    assert bread.time == datetime(2024, 5, 2, 8, 15)
    assert [(t.id, t.speaker, t.text) for t in bikes.turns] == [
        ("D1:1", "user", "Which tyre pressure for gravel?"), ("D1:2", "assistant", "Around 35 psi.")]
    assert [(t.speaker, t.text, t.image_caption) for t in bread.turns] == [
        ("user", "My starter smells of acetone.", "attached: feeding-log.txt, jar.jpg"),
        ("assistant", "It is hungry.\n\nFeed it twice a day.", None),
        ("user", "", "attached: bubbles.png"),
    ]
    assert conv.meta["chats"] == [
        {"session": 1, "title": "Bikes", "id": "uuid-Bikes", "attachments": 0},
        {"session": 2, "title": "Sourdough", "id": "uuid-Sourdough", "attachments": 3}]
    text = "\n".join(loaded.warnings)
    assert "1 chat(s) with no user or assistant text were skipped: $[1] 'New chat'" in text
    (skipped,) = [w for w in loaded.warnings if "message part(s)" in w]
    assert "skipped 6 message part(s): " in skipped
    for counted in ("2 tool_use block(s)", "1 thinking block(s)", "1 tool_result block(s)",
                    "1 system message(s)", "1 message(s) without text"):
        assert counted in skipped
    assert "3 attached file(s) are named in their turn's caption; their contents were not imported" in text


def test_a_file_of_one_chat_keeps_its_name_and_streams(write):
    path = write("work.json", export()[0])
    streamed = stream_file(path)
    assert streamed.format == "claude" and streamed.ids == ["work"] and streamed.turns == 3


def test_a_chat_without_created_at_takes_its_first_messages_time(write):
    value = chat("Late", None, message("human", say("hello"), created="2024-07-01T12:00:00+02:00"))
    (conv,) = load_file(write("conversations.json", [value])).conversations
    assert conv.sessions[0].time == datetime(2024, 7, 1, 10, 0)


def test_a_bad_time_is_a_warning(write):
    value = chat("T", "last tuesday", message("human", say("hello"), created="soon"))
    loaded = load_file(write("conversations.json", [value]))
    assert loaded.conversations[0].sessions[0].time is None
    assert any("$[0].created_at: cannot read the time 'last tuesday'" in w for w in loaded.warnings)


def test_a_refusal_says_what_was_skipped(write):
    value = chat("Tools", "2024-05-02T08:15:00Z",
                 message("assistant", {"type": "tool_use", "name": "x", "input": {}}),
                 message("assistant", {"type": "thinking", "thinking": "hm"}))
    with pytest.raises(IngestError) as err:
        load_file(write("conversations.json", [value]))
    assert str(err.value).endswith("conversations.json: $: no chat has user or assistant text (1 chat(s); "
                                   "skipped 2 message(s) without text, 1 tool_use block(s), "
                                   "1 thinking block(s)) (read as a Claude.ai export)")


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        (lambda c: c.pop("chat_messages"), "$[0].chat_messages", "missing"),
        (lambda c: c.update(chat_messages={"a": 1}), "$[0].chat_messages",
         "expected a list of messages, got object"),
        (lambda c: c["chat_messages"][0].pop("sender"), "$[0].chat_messages[0].sender",
         "expected a string, got null"),
        (lambda c: c["chat_messages"][0].update(content="hi"), "$[0].chat_messages[0].content",
         "expected a list of content blocks, got string"),
        (lambda c: c["chat_messages"].append(7), "$[0].chat_messages[4]",
         "expected a message object, got number"),
    ],
)
def test_broken_exports_are_refused_in_one_line_with_the_json_path(write, change, where, what):
    value = export()[0]
    change(value)
    with pytest.raises(IngestError) as err:
        load_file(write("conversations.json", [value, export()[2]]), fmt="claude")
    assert err.value.where == where and what in err.value.what, str(err.value)
    assert "\n" not in str(err.value)


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    s = Services(settings)  # no embedder needed to import
    yield s
    s.close()


def test_imported_through_the_service_into_the_store(services, write):
    result = services.imports.import_file(write("conversations.json", export()))
    assert (result.ids, result.format) == (["claude"], "claude")
    stored = services.imports.conversation("claude")
    assert [s.index for s in stored.sessions] == [1, 2]
    assert stored.turns[2].text == "My starter smells of acetone."
    assert stored.turns[2].image_caption == "attached: feeding-log.txt, jar.jpg"
    assert services.imports.stats("claude")["turns"] == 5
