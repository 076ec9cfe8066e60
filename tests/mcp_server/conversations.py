"""A small hand-made three-session conversation for the MCP and growth tests, and helpers to
write it (or its first sessions) as a LoCoMo-format file."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.construct.dialogues import HIKING, POTTERY, TWO_THEMES, Line

CONV = "anna-ben"
DATES = (datetime(2023, 5, 8, 13, 0), datetime(2023, 5, 20, 18, 30), datetime(2023, 6, 2, 9, 15))
SESSIONS: tuple[list[Line], ...] = (TWO_THEMES, HIKING, POTTERY)


def locomo(sessions: int, *, extra: list[Line] | None = None, edit: tuple[int, int, str] | None = None,
           conv_id: str = CONV) -> list[dict[str, Any]]:
    """The conversation's first ``sessions`` sessions as a LoCoMo file's content; ``extra``
    turns appended to the last one; ``edit`` = (session, turn, new text) changes a turn."""
    body: dict[str, Any] = {"speaker_a": "Anna", "speaker_b": "Ben"}
    for s in range(1, sessions + 1):
        lines = list(SESSIONS[s - 1]) + (list(extra or []) if s == sessions else [])
        body[f"session_{s}_date_time"] = DATES[s - 1].strftime("%I:%M %p on %d %B, %Y")
        turns = [{"speaker": line[0], "dia_id": f"D{s}:{i + 1}", "text": line[1],
                  **({"blip_caption": line[2]} if len(line) > 2 else {})}
                 for i, line in enumerate(lines)]
        if edit is not None and edit[0] == s:
            turns[edit[1] - 1]["text"] = edit[2]
        body[f"session_{s}"] = turns
    return [{"sample_id": conv_id, "conversation": body, "qa": []}]


def write(path: Path, sessions: int, **kw: Any) -> Path:
    path.write_text(json.dumps(locomo(sessions, **kw)), encoding="utf-8")
    return path
