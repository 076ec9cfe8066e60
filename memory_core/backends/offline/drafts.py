"""What the offline extraction stages share: a record draft, the episode's state, confidence.

A ``Draft`` is a record before ids and de-duplication (``frames.finish`` turns drafts into
records and event frames). ``ExtractState`` carries the episode, the conversation facts, the
drafts made so far and the people mentioned so far (for he/she/they).

**Confidence** = specificity × resolution × agreement, clamped to [0.05, 0.99]; the
specificity of each rule kind is ``SPECIFICITY``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory_core.contracts import ConversationInfo
from memory_core.models import Episode, Modality, Turn
from memory_core.timeexpr import TimeValue

if TYPE_CHECKING:
    from spacy.tokens import Token

SPECIFICITY = {"phrase": 0.9, "lexicon": 0.8, "pattern": 0.75, "caption": 0.7, "fallback": 0.55,
               "topic": 0.45}

# verbs too general to name a fact on their own (the fallback and the verb-lemma rule skip them)
TRIVIAL_VERBS = frozenset({
    "be", "do", "get", "have", "say", "tell", "know", "mean", "guess", "see", "look", "sound",
    "seem", "let", "thank", "hear", "glad", "bet", "wonder", "ask", "happen", "go", "come",
    "keep", "put", "bring", "show", "sure", "hope", "can", "will", "would", "gon", "wanna",
    "agree", "imagine", "appreciate", "congratulate", "take", "reach", "check",
})
# a value that only points elsewhere names no fact
PRONOUN_VALUES = frozenset({"it", "that", "this", "them", "him", "her", "me", "you", "us", "those",
                            "these", "one", "myself", "yourself", "themselves", "itself", "ourselves",
                            "there", "what", "something", "anything", "everything", "some", "lot"})
VAGUE_NOUNS = frozenset({"thing", "lot", "time", "way", "stuff", "one", "bit", "something", "anything",
                         "everything", "nothing", "kind", "sort", "part", "deal", "idea"})


@dataclass
class Subject:
    name: str
    type: str
    resolution: float
    agreement: float = 1.0


@dataclass
class Mention:
    name: str
    type: str
    plural: bool
    turn: int
    subject: bool = False  # the subject of its clause ("Rex is staying with my mom": Rex)
    at: int = -1  # the token it starts at in its turn's parse (-1: not known)
    gender: str | None = None  # "f" / "m" when its kin noun says ("my sister Lisa"), else not known


@dataclass
class Draft:
    entity: str
    entity_type: str
    prop: str
    value: str
    turn: Turn
    confidence: float
    modality: Modality = Modality.OBSERVED
    condition: str | None = None
    time: TimeValue | None = None
    pred: Token | None = None
    event: bool = False


@dataclass
class ExtractState:
    episode: Episode
    info: ConversationInfo
    drafts: list[Draft] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # a name a speaker goes by (lower) -> speaker


def conf(rule: str, resolution: float, agreement: float = 1.0) -> float:
    return round(min(0.99, max(0.05, SPECIFICITY[rule] * resolution * agreement)), 2)
