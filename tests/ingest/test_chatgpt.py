"""ChatGPT data export: one conversation, a session per chat, the current branch only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memory_core.config import ImportLimits
from memory_core.errors import IngestError
from memory_core.ingest import detect_format, load_file, stream_file


def node(nid: str, parent: str | None, children: list[str], role: str | None = None,
         text: str | list[Any] = "", *, ctype: str = "text", **message: Any) -> dict[str, Any]:
    msg = None
    if role is not None:
        parts = text if isinstance(text, list) else [text]
        msg = {"id": nid, "author": {"role": role, "name": None, "metadata": {}},
               "create_time": 1_700_000_000.0, "content": {"content_type": ctype, "parts": parts},
               "status": "finished_successfully", "recipient": "all", "metadata": {}, **message}
    return {"id": nid, "message": msg, "parent": parent, "children": children}


def chat(title: str, created: float | None, nodes: list[dict[str, Any]],
         current: str | None) -> dict[str, Any]:
    value: dict[str, Any] = {"title": title, "create_time": created, "update_time": created,
                             "mapping": {n["id"]: n for n in nodes}, "conversation_id": f"id-{title}"}
    if current is not None:
        value["current_node"] = current
    return value


def linear(title: str, created: float, *messages: tuple[str, str]) -> dict[str, Any]:
    ids = ["root"] + [f"{title}-{i}" for i in range(len(messages))]
    nodes = [node("root", None, ids[1:2])]
    for i, (role, text) in enumerate(messages):
        nodes.append(node(ids[i + 1], ids[i], ids[i + 2:i + 3], role, text))
    return chat(title, created, nodes, ids[-1])


def edited_chat() -> dict[str, Any]:
    """The user edited their first message: the old branch must not be imported."""
    nodes = [
        node("root", None, ["sys"]),
        node("sys", "root", ["u-old", "u-new"], "system", ""),
        node("u-old", "sys", ["a-old"], "user", "My dog is called Rex."),
        node("a-old", "u-old", [], "assistant", "Rex is a fine name."),
        node("u-new", "sys", ["a-new"], "user", "My dog is called Bruno."),
        node("a-new", "u-new", ["t-call"], "assistant", "Bruno is a fine name."),
        node("t-call", "a-new", ["t-out"], "assistant", "search('Bruno')", ctype="code",
             recipient="browser"),
        node("t-out", "t-call", ["a-img"], "tool", "results ..."),
        node("a-img", "t-out", ["u-pic"], "assistant",
             [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://x",
               "metadata": {"dalle": {"prompt": "a brown dog on a beach"}}}],
             ctype="multimodal_text"),
        node("u-pic", "a-img", [], "user",
             ["Here is Bruno.", {"content_type": "image_asset_pointer", "asset_pointer": "file-service://y"}],
             ctype="multimodal_text"),
    ]
    return chat("Dog", 1_690_000_000.0, nodes, "u-pic")


def export() -> list[dict[str, Any]]:
    return [
        linear("Later", 1_700_000_000.5, ("user", "I moved to Lyon."), ("assistant", "Welcome to Lyon!")),
        chat("Empty", 1_695_000_000.0, [node("root", None, [])], "root"),
        edited_chat(),
    ]


def test_an_export_is_one_conversation_with_a_session_per_chat_in_time_order(write):
    path = write("conversations.json", export())
    assert detect_format(path) == "chatgpt"
    loaded = load_file(path)
    assert loaded.format == "chatgpt"
    (conv,) = loaded.conversations
    assert conv.id == "chatgpt" and conv.speakers == ("user", "assistant")
    assert [s.index for s in conv.sessions] == [1, 2]
    dog, later = conv.sessions
    assert dog.time == datetime(2023, 7, 22, 4, 26, 40)
    assert later.time == datetime(2023, 11, 14, 22, 13, 20)
    assert [(t.id, t.speaker, t.text, t.image_caption) for t in dog.turns] == [
        ("D1:1", "user", "My dog is called Bruno.", None),
        ("D1:2", "assistant", "Bruno is a fine name.", None),
        ("D1:3", "assistant", "", "generated image: a brown dog on a beach"),
        ("D1:4", "user", "Here is Bruno.", None),
    ]
    assert [t.text for t in later.turns] == ["I moved to Lyon.", "Welcome to Lyon!"]
    assert conv.meta["chats"][0] == {"session": 1, "title": "Dog", "id": "id-Dog",
                                     "other_branch_messages": 2}
    text = " ".join(loaded.warnings)
    assert "1 chat(s) with no user or assistant text were skipped: $[1] 'Empty'" in text
    assert "skipped 4 message part(s)" in text
    for counted in ("1 system message(s)", "1 tool message(s)", "1 call(s) to a tool",
                    "1 image(s) without a caption"):
        assert counted in text
    assert "2 message(s) on branches not shown last" in text


def test_without_current_node_the_newest_reply_is_followed(write):
    value = edited_chat()
    del value["current_node"]
    loaded = load_file(write("mine.json", [value]))
    (conv,) = loaded.conversations
    assert conv.id == "mine"
    assert conv.turns[0].text == "My dog is called Bruno."
    assert any("current_node: missing" in w for w in loaded.warnings)


def test_big_exports_stream_and_the_limit_applies_to_what_is_kept(write):
    chats = [linear(f"c{i}", 1_700_000_000.0 + i, ("user", f"Note {i}."), ("assistant", "Noted."))
             for i in range(40)]
    for value in chats:  # exports carry bulky metadata that is not kept
        value["moderation_results"] = ["x" * 6000]
    path = write("conversations.json", chats)
    limits = ImportLimits(max_file_mb=path.stat().st_size / 2**20 / 2)  # the file is over the limit
    streamed = stream_file(path, limits=limits)
    assert streamed.format == "chatgpt" and streamed.ids == ["chatgpt"] and streamed.turns == 80
    (conv,) = list(streamed.conversations())
    assert [t.text for t in conv.sessions[-1].turns] == ["Note 39.", "Noted."]
    with pytest.raises(IngestError, match=r"import limit .*raise MNEMOSCOPE_MAX_FILE_MB"):
        load_file(path, limits=ImportLimits(max_file_mb=0.01))


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        (lambda c: c.pop("mapping"), "$[0].mapping", "missing"),
        (lambda c: c.update(mapping=[1, 2]), "$[0].mapping", "expected an object of message nodes, got list"),
        (lambda c: c["mapping"]["a-new"].update(parent="u-pic"), '$[0].mapping["a-new"].parent',
         "parent links form a cycle"),
        (lambda c: c["mapping"]["a-new"].update(parent="nowhere"), '$[0].mapping["a-new"].parent',
         "names no node of the mapping: 'nowhere'"),
        (lambda c: c.update(current_node="ghost"), "$[0].current_node", "names no node"),
        (lambda c: c["mapping"]["u-new"]["message"]["author"].update(role=3),
         '$[0].mapping["u-new"].message.author.role', "expected a string, got number"),
        (lambda c: c["mapping"]["u-new"]["message"]["content"].update(parts="hi"),
         '$[0].mapping["u-new"].message.content.parts', "expected a list of parts, got string"),
        (lambda c: c["mapping"].update({"u-new": "text"}), '$[0].mapping["u-new"]',
         "expected a message node, got string"),
    ],
)
def test_hostile_exports_are_refused_with_the_json_path(write, change, where, what):
    value = edited_chat()
    change(value)
    with pytest.raises(IngestError) as err:
        load_file(write("conversations.json", [value]), fmt="chatgpt")
    assert err.value.where == where and what in err.value.what, str(err.value)
    assert "\n" not in str(err.value)


def test_an_export_of_only_empty_chats_is_refused(write):
    empty = chat("Empty", 1_695_000_000.0, [node("root", None, ["s"]),
                                           node("s", "root", [], "system", "be nice")], "s")
    with pytest.raises(IngestError) as err:
        load_file(write("conversations.json", [empty]))
    assert err.value.where == "$"
    assert err.value.what == ("no chat has user or assistant text (1 chat(s); skipped 1 system message(s)) "
                              "(read as a ChatGPT export)")


def test_a_bad_create_time_is_a_warning(write):
    value = linear("T", 0, ("user", "hello"))
    value["create_time"] = "yesterday"
    loaded = load_file(write("conversations.json", [value]))
    assert loaded.conversations[0].sessions[0].time is None
    assert any("$[0].create_time" in w and "Unix time" in w for w in loaded.warnings)


def modern_chat() -> dict[str, Any]:
    """A chat as recent exports write it: hidden context, reasoning, a tool round trip, code shown
    to the user, an uploaded image, a voice message and content types the reader has never seen."""
    steps: list[tuple[str, Any, str, dict[str, Any]]] = [
        ("system", [""], "text", {"metadata": {"is_visually_hidden_from_conversation": True}}),
        ("user", None, "user_editable_context", {"content": {
            "content_type": "user_editable_context", "user_profile": "I keep bees.",
            "user_instructions": "Be brief."}}),
        ("user", ["My hive swarmed twice in May.",
                  {"content_type": "image_asset_pointer", "asset_pointer": "file-service://hive",
                   "width": 640, "height": 480}], "multimodal_text", {}),
        ("assistant", None, "thoughts", {"content": {"content_type": "thoughts", "thoughts": [
            {"summary": "Swarming", "content": "Consider queen cells."}]}}),
        ("assistant", None, "reasoning_recap", {"content": {"content_type": "reasoning_recap",
                                                            "content": "Thought for 4 seconds"}}),
        ("assistant", None, "code", {"recipient": "python", "content": {
            "content_type": "code", "language": "python", "text": "print(2 * 7)"}}),
        ("tool", None, "execution_output", {"content": {"content_type": "execution_output",
                                                        "text": "14"}}),
        ("assistant", None, "code", {"content": {"content_type": "code", "language": "bash",
                                                 "text": "echo 'check for queen cells'"}}),
        ("assistant", ["Two swarms in one month usually means the colony ran out of room."],
         "text", {}),
        ("user", [{"content_type": "audio_transcription", "text": "Should I add a super?"},
                  {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://a"}],
         "multimodal_text", {}),
        ("assistant", ["Yes, add a super now.", {"content_type": "hologram_card", "x": 1}],
         "brand_new_widget", {}),
        ("assistant", None, "sonic_webpage", {"content": {"content_type": "sonic_webpage",
                                                          "url": "https://example.org"}}),
    ]
    ids = ["root"] + [f"n{i}" for i in range(len(steps))]
    nodes = [node("root", None, ids[1:2])]
    for i, (role, parts, ctype, extra) in enumerate(steps):
        n = node(ids[i + 1], ids[i], ids[i + 2:i + 3], role, parts or [], ctype=ctype)
        n["message"].update(extra)
        nodes.append(n)
    return chat("Bees", 1_710_000_000.0, nodes, ids[-1])


def test_every_content_type_is_read_text_kept_the_rest_counted_in_one_warning(write):
    loaded = load_file(write("conversations.json", [modern_chat()]))
    (conv,) = loaded.conversations
    assert [(t.speaker, t.text) for t in conv.turns] == [
        ("user", "My hive swarmed twice in May."),
        ("assistant", "echo 'check for queen cells'"),
        ("assistant", "Two swarms in one month usually means the colony ran out of room."),
        ("user", "Should I add a super?"),
        ("assistant", "Yes, add a super now."),
    ]
    (skipped,) = [w for w in loaded.warnings if "message part(s)" in w]
    assert "conversations.json: skipped 10 message part(s): " in skipped
    for counted in ("1 system message(s)", "1 user_editable_context part(s)", "1 thoughts part(s)",
                    "1 reasoning_recap part(s)", "1 call(s) to a tool", "1 tool message(s)",
                    "1 image(s) without a caption", "1 audio_asset_pointer part(s)",
                    "1 hologram_card part(s)", "1 sonic_webpage part(s)"):
        assert counted in skipped


def test_a_refusal_says_what_was_skipped(write):
    value = modern_chat()
    for n in value["mapping"].values():  # only what is never a turn is left
        msg = n["message"]
        if msg is not None and msg["content"]["content_type"] not in ("thoughts", "reasoning_recap"):
            n["message"] = None
    with pytest.raises(IngestError) as err:
        load_file(write("conversations.json", [value]))
    assert str(err.value).endswith("conversations.json: $: no chat has user or assistant text (1 chat(s); "
                                   "skipped 1 thoughts part(s), 1 reasoning_recap part(s)) "
                                   "(read as a ChatGPT export)")


def test_a_part_of_an_unknown_kind_is_a_warning(write):
    value = edited_chat()
    value["mapping"]["u-new"]["message"]["content"]["parts"] = ["My dog is called Bruno.", ["x"], 7]
    loaded = load_file(write("conversations.json", [value]))
    assert loaded.conversations[0].turns[0].text == "My dog is called Bruno."
    assert any("1 list part(s)" in w and "1 number part(s)" in w for w in loaded.warnings)


def test_a_message_without_a_content_object_is_counted_not_refused(write):
    value = edited_chat()
    value["mapping"]["a-new"]["message"]["content"] = None
    loaded = load_file(write("conversations.json", [value]))
    assert [t.text for t in loaded.conversations[0].turns][:2] == ["My dog is called Bruno.", ""]
    assert any("1 message(s) without a content object" in w for w in loaded.warnings)
