"""Reading a LoCoMo-layout file for evaluation: the gold questions of each conversation.

Gold evidence ids are normalised the way the independent bench scorer does it: composite
strings ("D8:6; D9:17") are split, "D:11:26" -> "D11:26", "D30:05" -> "D30:5", duplicates
dropped, and ids absent from the dialogue skipped. Questions left without a gold id are not
scored for recall. Category 5 (adversarial) keeps its qid slot but is not evaluated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.errors import IngestError

SCORED_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION_RE = re.compile(r"^session_(\d+)$")
_ID_RE = re.compile(r"^D:?(\d+):(\d+)$")


@dataclass(frozen=True)
class GoldQuestion:
    conv_id: str
    qid: int
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass
class GoldConversation:
    conv_id: str
    turn_ids: set[str] = field(default_factory=set)
    questions: list[GoldQuestion] = field(default_factory=list)

    def scored(self) -> list[GoldQuestion]:
        return [q for q in self.questions if q.category in SCORED_CATEGORIES]


def normalise_conv_id(value: Any) -> str:
    s = str(value).strip()
    if s.endswith(".json"):
        s = s[:-5]
    return s if s.startswith("conv-") else f"conv-{s}"


def normalise_evidence(raw: list[Any], known: set[str]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for item in raw:
        for token in (t for t in re.split(r"[;,\s]+", str(item).strip()) if t):
            m = _ID_RE.match(token)
            fixed = f"D{int(m.group(1))}:{int(m.group(2))}" if m else token
            if fixed in known:
                out.setdefault(fixed, None)
    return tuple(out)


def _answer_text(value: Any) -> str:
    if value is None:
        return ""
    return str(value)


def load_gold(path: str | Path) -> list[GoldConversation]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise IngestError(str(p), "", f"cannot read the file: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise IngestError(str(p), f"line {exc.lineno}", f"invalid JSON: {exc.msg}") from None
    samples = data if isinstance(data, list) else [data]
    out = []
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict):
            raise IngestError(str(p), f"$[{i}]", "expected a LoCoMo sample object")
        body = sample.get("conversation", sample)
        if not isinstance(body, dict):
            raise IngestError(str(p), f"$[{i}].conversation", "expected an object")
        if sample.get("sample_id") is not None:
            conv_id = str(sample["sample_id"])
        else:
            conv_id = normalise_conv_id(p.stem) if p.stem.isdigit() else p.stem
            if len(samples) > 1:
                conv_id = f"{conv_id}-{i + 1}"
        known: set[str] = set()
        for key, turns in body.items():
            if _SESSION_RE.match(key) and isinstance(turns, list):
                known.update(str(t.get("dia_id")) for t in turns if isinstance(t, dict) and t.get("dia_id"))
        gold = GoldConversation(conv_id=conv_id, turn_ids=known)
        qa = sample.get("qa", []) or []
        if not isinstance(qa, list):
            raise IngestError(str(p), f"$[{i}].qa", "expected a list")
        for qid, item in enumerate(qa):
            if not isinstance(item, dict):
                raise IngestError(str(p), f"$[{i}].qa[{qid}]", "expected a question object")
            try:
                category = int(item.get("category", 0))
            except (TypeError, ValueError):
                raise IngestError(str(p), f"$[{i}].qa[{qid}].category", "expected an integer") from None
            evidence = item.get("evidence") or []
            if not isinstance(evidence, list):
                evidence = [evidence]
            gold.questions.append(
                GoldQuestion(
                    conv_id=conv_id,
                    qid=qid,
                    question=str(item.get("question", "")),
                    answer=_answer_text(item.get("answer")),
                    evidence=normalise_evidence(evidence, known),
                    category=category,
                )
            )
        out.append(gold)
    return out
