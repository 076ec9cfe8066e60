"""The gold questions of LoCoMo-layout conversations, taken from what the importer read.

The file is read once, by the importer (``memory_core.ingest``): its questions come with their
evidence ids already normalised (``memory_core.ids.normalise_evidence``: composite strings
split, "D:11:26" -> "D11:26", "D30:05" -> "D30:5", duplicates dropped, ids naming no turn
skipped) — the way the independent bench scorer does it. Questions left without a gold id are
not scored for recall. Category 5 (adversarial) keeps its qid slot but is not evaluated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memory_core.config import ImportLimits
from memory_core.ids import normalise_evidence
from memory_core.ingest import load_file
from memory_core.models import Conversation, QAItem

SCORED_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


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


def gold_from_qa(conv_id: str, turn_ids: Iterable[str], qa: Iterable[QAItem]) -> GoldConversation:
    """Gold questions of one conversation from its turn ids and QA items (evidence re-normalised
    against the turns, so homes imported before the importer normalised agree too)."""
    known = set(turn_ids)
    gold = GoldConversation(conv_id=conv_id, turn_ids=known)
    for q in qa:
        evidence, _ = normalise_evidence(q.evidence, known)
        gold.questions.append(GoldQuestion(conv_id=conv_id, qid=q.qid, question=q.question,
                                           answer=q.answer or "", evidence=tuple(evidence),
                                           category=int(q.category or 0)))
    return gold


def gold_from_conversation(conv: Conversation) -> GoldConversation:
    return gold_from_qa(conv.id, (t.id for t in conv.turns), conv.qa)


def load_gold(path: str | Path, limits: ImportLimits | None = None) -> list[GoldConversation]:
    """Gold questions of every conversation of a LoCoMo-layout file (read by the importer)."""
    loaded = load_file(path, fmt="locomo", limits=limits)
    return [gold_from_conversation(c) for c in loaded.conversations]


def matches(conv_id: str, wanted: Iterable[str]) -> bool:
    """Whether ``conv_id`` is one of ``wanted`` ("26", "conv-26")."""
    want = set(wanted)
    short = conv_id[5:] if conv_id.startswith("conv-") else conv_id
    return conv_id in want or short in want or f"conv-{short}" in want


__all__ = ["CATEGORY_NAMES", "SCORED_CATEGORIES", "GoldConversation", "GoldQuestion",
           "gold_from_conversation", "gold_from_qa", "load_gold", "matches"]
