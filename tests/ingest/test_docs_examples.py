"""The examples docs/formats.md gives for the chat exports and the benchmark layouts import as
the text around them says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memory_core.ingest import load_file

DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"


def examples(heading: str) -> list[Any]:
    """The JSON code blocks of one ``## heading`` section of the formats doc."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.DOTALL)]


def test_the_claude_example(tmp_path: Path) -> None:
    (export,) = examples("Claude.ai data export")
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    loaded = load_file(path)
    (conv,) = loaded.conversations
    assert (loaded.format, conv.id) == ("claude", "claude")
    assert [(t.speaker, t.text, t.image_caption) for t in conv.turns] == [
        ("user", "My starter smells of acetone.", "attached: feeding-log.txt, jar.jpg"),
        ("assistant", "It is hungry: feed it twice a day.", None)]


def test_the_realtalk_example(tmp_path: Path) -> None:
    (chat,) = examples("REALTALK")
    path = tmp_path / "Chat_7_Ana_Ben.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    (conv,) = load_file(path).conversations
    assert (conv.id, [t.id for t in conv.turns]) == ("realtalk-7", ["D1:1", "D1:2"])
    assert conv.qa[0].evidence == ("D1:1",)


def test_the_beam_example(tmp_path: Path) -> None:
    chat, questions = examples("BEAM")
    root = tmp_path / "100K" / "3"
    (root / "probing_questions").mkdir(parents=True)
    (root / "chat.json").write_text(json.dumps(chat), encoding="utf-8")
    (root / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions),
                                                                       encoding="utf-8")
    (conv,) = load_file(root).conversations
    assert conv.id == "beam-100k-3"
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "D2:3", "D2:4"]
    assert conv.turns[0].text == "I am planning a garden for my balcony, can you help me choose plants?"
    assert [(q.evidence, q.category) for q in conv.qa] == [(("D2:3",), 4), (("D1:1", "D2:3"), 2)]
