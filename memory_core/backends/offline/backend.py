"""The offline backend: local embeddings + spaCy + rules. No key, no network.

    segment(session, info)         TextTiling over MiniLM turn embeddings + dialogue rules
                                   (memory_core.backends.offline.segment)
    extract(episode, turns, info)  spaCy clauses -> records + event frames
                                   (memory_core.backends.offline.extract)
    plan(question, vocabulary)     memory_core.backends.offline.planner.plan_question
    answer(question, plan, buffer, unmentioned=...)
                                   memory_core.backends.offline.answering.extractive_answer

Parsed turns are kept in a small per-instance cache between ``segment`` and ``extract`` so a
session is parsed once. The spaCy model loads once per process; the embedder is given by the
caller (``make_backend`` passes the process-wide one), its model loads on first use.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.backends.offline import nlp
from memory_core.backends.offline.extract import extract_episode
from memory_core.backends.offline.segment import segment_session
from memory_core.construct.embedcache import embed_texts
from memory_core.contracts import BackendBase, ConversationInfo, Extraction, Vocabulary
from memory_core.models import Answer, BufferTurn, Episode, Plan, Record, Session, Turn

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from memory_core.embeddings import Embedder

log = logging.getLogger(__name__)

# parsed turns kept between stages, by text length: a parsed long turn costs ~700 bytes per
# character (a LongMemEval haystack of 490,000 characters holds ~330 MB of Docs), so a bound by
# count let one process grow by gigabytes over a run of long haystacks
_DOC_CACHE_CHARS = 1_000_000


class OfflineBackend(BackendBase):
    name = "offline"

    def __init__(self, *, embedder: Embedder) -> None:
        self.embedder = embedder
        self._docs: OrderedDict[str, Doc] = OrderedDict()
        self._chars = 0  # characters of the texts in _docs
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ shared models
    def prepare(self) -> None:
        """Load the spaCy and embedding models now (the build times this as ``load``)."""
        nlp.get_nlp()
        _ = self.embedder.model

    @property
    def warms(self) -> bool:
        return True

    def warm(self, sessions: list[Session]) -> None:
        """Parse the sessions' turns ahead of ``segment``/``extract`` (the build runs this in a
        thread beside its embedding batch); as many as the parse cache keeps."""
        texts, room = [], _DOC_CACHE_CHARS // 2
        for text in (t.text for s in sessions for t in s.turns):
            room -= len(text)
            if room < 0:
                break
            texts.append(text)
        self.parse(texts)

    def parse(self, texts: list[str]) -> list[Doc]:
        """Parsed (normalised) texts, from the cache when already parsed."""
        keys = [nlp.normalise_text(t) for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(k for k in keys if k not in self._docs))
        if missing:
            parsed = nlp.parse_many(missing)
            with self._lock:
                for key, doc in zip(missing, parsed, strict=True):
                    self._docs[key] = doc
                    self._chars += len(key)
                while self._chars > _DOC_CACHE_CHARS and len(self._docs) > 1:
                    self._chars -= len(self._docs.popitem(last=False)[0])
        with self._lock:
            cached = [self._docs.get(k) for k in keys]
        return [d if d is not None else nlp.parse(k) for d, k in zip(cached, keys, strict=True)]

    # ------------------------------------------------------------------ stages
    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]:
        turns = list(session.turns)
        if not turns:
            return []
        vectors = embed_texts(self.embedder, [t.render() for t in turns])
        docs = self.parse([t.text for t in turns])
        return segment_session(info.conv_id, session, vectors, docs, info.speakers)

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction:
        if not turns:
            return Extraction()
        docs = self.parse([t.text for t in turns])
        return extract_episode(episode, turns, docs, info, self.parse)

    def plan(self, question: str, vocabulary: Vocabulary) -> Plan:
        from memory_core.backends.offline.planner import plan_question

        return plan_question(question, vocabulary, embedder=self.embedder)

    def answer(self, question: str, plan: Plan, buffer: list[BufferTurn], *,
               unmentioned: tuple[str, ...], records: Sequence[Record] = ()) -> Answer:
        from memory_core.backends.offline.answering import extractive_answer

        return extractive_answer(question, plan, buffer, unmentioned=unmentioned, records=records,
                                 parse=self.parse, embed=self.embedder.embed)

