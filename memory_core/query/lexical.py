"""BM25 over short documents (turns, record texts) with ``bm25s`` and the Snowball stemmer.

``LexicalIndex(texts)`` indexes once; ``scores(query_terms)`` returns a score for every
document (0 where nothing matches), higher is better. Indexes are built per conversation and
kept in memory by ``memory_core.query.context``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np

from memory_core.query.text import terms

log = logging.getLogger(__name__)

K1 = 1.5
B = 0.75


class LexicalIndex:
    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import
        started = time.perf_counter()
        self.size = len(texts)
        self.vocab: dict[str, int] = {}
        ids = [[self.vocab.setdefault(t, len(self.vocab)) for t in terms(text)] for text in texts]
        self.doc_terms: list[frozenset[str]] = [frozenset(terms(text)) for text in texts]
        self._bm25: bm25s.BM25 | None = None
        if self.size and self.vocab:
            self._bm25 = bm25s.BM25(k1=K1, b=B)
            self._bm25.index(bm25s.tokenization.Tokenized(ids=ids, vocab=self.vocab), show_progress=False)
        log.debug("lexical index of %d documents in %.3fs", self.size, time.perf_counter() - started)

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 score of each document for the (stemmed) ``query_terms``."""
        known = [self.vocab[t] for t in dict.fromkeys(query_terms) if t in self.vocab]
        if self._bm25 is None or not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)

    def top(self, query_terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        s = self.scores(query_terms)
        order = np.argsort(-s, kind="stable")[:k]
        return [(int(i), float(s[i])) for i in order if s[i] > 0]
