"""The embedder's batches: a forward pass never holds more word pieces (padding included) than
its budget, every text is embedded once, in its own row, as one big pass would embed it."""

from __future__ import annotations

from typing import Any

import numpy as np

from memory_core.embeddings import Embedder

# invented texts of very different lengths, so batches must differ in size
_TEXTS = [
    "Okay.",
    "We moved the bakery stall to the corner by the fountain last spring. " * 12,
    "My sister repaints old bicycles and sells them at the flea market.",
    "Thanks!",
    "The river walk starts at the old mill, crosses two bridges and ends by the ferry. " * 6,
    "He plays cello in a quartet that rehearses on Tuesdays.",
    "Fine, see you then.",
    "I keep a notebook of every hike: the trail, the weather, who came along. " * 3,
    "Bought tomatoes.",
    "The ferry was late again, so we waited in the café and played cards for an hour. " * 9,
]


def _sharing(embedder: Any, **kw: Any) -> Embedder:
    """An embedder with its own batching that uses the loaded model (no second load)."""
    other = Embedder(precision=embedder.precision, **kw)
    other._model = embedder.model
    return other


def test_batches_stay_within_the_token_budget_and_cover_every_text_once(embedder: Any) -> None:
    budgeted = _sharing(embedder, token_budget=300, batch_size=4)
    tokenizer, most = embedder.model.tokenizer, embedder.model.max_seq_length
    pieces = [len(ids) for ids in tokenizer(_TEXTS, truncation=True, max_length=most)["input_ids"]]
    batches = budgeted.batches(_TEXTS)
    assert sorted(i for b in batches for i in b) == list(range(len(_TEXTS)))
    assert len(batches) > len(_TEXTS) // 4, "long texts get smaller batches than batch_size"
    for batch in batches:
        assert len(batch) <= 4
        assert len(batch) == 1 or len(batch) * max(pieces[i] for i in batch) <= 300, batch
    order = [i for b in batches for i in b]
    assert [pieces[i] for i in order] == sorted(pieces, reverse=True), "longest first"


def test_budgeted_batches_embed_each_text_as_one_pass_does(embedder: Any) -> None:
    small = _sharing(embedder, token_budget=300).embed(_TEXTS)
    whole = _sharing(embedder, token_budget=10**9).embed(_TEXTS)
    assert small.shape == whole.shape == (len(_TEXTS), 384)
    assert np.all(np.sum(small * whole, axis=1) > 0.999), "the same vector in the same row"
    alone = np.stack([embedder.embed_one(t) for t in _TEXTS[:3]])  # a text alone, in float32
    assert np.all(np.sum(small[:3] * alone, axis=1) > 0.99)
