"""Record fidelity against LoCoMo's human-written observations, for ``bench build``.

LoCoMo ships, per session and speaker, observations ("Maria volunteers at a homeless shelter",
evidence "D1:3"): the closest public thing to gold memory records. Nothing here feeds the
build; the importer keeps the observations in the conversation's ``meta`` and they are read
only to measure, the same way as ``../shared/bench/fidelity.py``:

    recall@0.6      share of observations with an active record citing one of their evidence
                    turns whose text ("entity property value [condition]") has MiniLM cosine
                    >= 0.6 with the observation
    turn_copy@0.6   the same when the "record" is the evidence turn itself ("speaker: text")
    precision@0.6   share of active records matching an observation they share a turn with
    catch_all       share of records whose property is a catch-all (talks_about, description,
                    shares_image, feels, mentions, says, discusses)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from memory_core.ids import canonical_turn_id, evidence_tokens
from memory_core.models import Record, RecordStatus, Turn

THRESHOLD = 0.6
CATCH_ALL = frozenset({"talks_about", "description", "shares_image", "feels", "mentions", "says",
                       "discusses"})


def observations(meta: dict[str, Any]) -> list[tuple[str, set[str]]]:
    """(text, evidence turn ids) of each LoCoMo observation in ``meta`` (none when absent)."""
    out: list[tuple[str, set[str]]] = []
    by_session = meta.get("observation") or {}
    for per_speaker in by_session.values() if isinstance(by_session, dict) else ():
        for facts in per_speaker.values() if isinstance(per_speaker, dict) else ():
            for fact in facts if isinstance(facts, list) else ():
                if isinstance(fact, list | tuple) and len(fact) >= 2 and isinstance(fact[0], str):
                    raw = fact[1] if isinstance(fact[1], list) else [fact[1]]
                    ids = {canonical_turn_id(p) for item in raw for p in evidence_tokens(item)}
                    out.append((fact[0], ids))
    return out


def record_text(r: Record) -> str:
    text = f"{r.entity} {r.property.replace('_', ' ')} {r.value or ''}"
    return f"{text} {r.condition}".strip() if r.condition else text.strip()


def fidelity(meta: dict[str, Any], records: Sequence[Record], turns: Sequence[Turn],
             embed: Callable[[list[str]], np.ndarray]) -> dict[str, Any] | None:
    """The figures above, or None when the conversation has no observations."""
    obs = observations(meta)
    if not obs:
        return None
    active = [r for r in records if r.status == RecordStatus.ACTIVE]
    by_id = {t.id: t for t in turns}
    ov = embed([text for text, _ in obs])
    rv = embed([record_text(r) for r in active]) if active else np.zeros((0, ov.shape[1]), np.float32)
    cited = sorted({t for _, ev in obs for t in ev if t in by_id})
    tv = dict(zip(cited, embed([f"{by_id[t].speaker}: {by_id[t].text}" for t in cited]), strict=True))
    by_turn: dict[str, list[int]] = {}
    for i, r in enumerate(active):
        for t in r.evidence_turn_ids:
            by_turn.setdefault(canonical_turn_id(t), []).append(i)
    best_record = np.zeros(len(active))
    recalled = copied = 0
    for j, (_, evidence) in enumerate(obs):
        candidates = sorted({i for t in evidence for i in by_turn.get(t, [])})
        sims = [float(rv[i] @ ov[j]) for i in candidates]
        for i, s in zip(candidates, sims, strict=True):
            best_record[i] = max(best_record[i], s)
        recalled += max(sims, default=0.0) >= THRESHOLD
        copied += max((float(tv[t] @ ov[j]) for t in evidence if t in tv), default=0.0) >= THRESHOLD
    n_rec = max(len(active), 1)
    return {
        "observations": len(obs), "records": len(active),
        "recall": round(recalled / len(obs), 3), "turn_copy": round(copied / len(obs), 3),
        "precision": round(float((best_record >= THRESHOLD).sum()) / n_rec, 3),
        "catch_all": round(sum(r.property in CATCH_ALL for r in active) / n_rec, 3),
    }
