"""Identifiers shared by every floor: evidence turn ids and vector ids.

Evidence ids in sources are untidy: composite strings ("D8:6; D9:17"), a stray colon
("D:11:26"), zero padding ("D30:05"). ``normalise_evidence`` repairs them the way the
independent bench scorer does; it is the one normaliser the importer, the evaluator and the
build measures use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_EVIDENCE_ID = re.compile(r"^D:?(\d+):(\d+)$")
_SEPARATORS = re.compile(r"[;,\s]+")


def evidence_tokens(item: object) -> list[str]:
    """The ids written in one evidence entry ("D8:6; D9:17" -> ["D8:6", "D9:17"])."""
    return [t for t in _SEPARATORS.split(str(item).strip()) if t]


def canonical_turn_id(token: str) -> str:
    """"D:11:26" -> "D11:26", "D30:05" -> "D30:5"; anything else is returned unchanged."""
    m = _EVIDENCE_ID.match(token)
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else token


def normalise_evidence(raw: Iterable[object], known: set[str]) -> tuple[list[str], list[str]]:
    """(ids naming a turn in ``known``, without duplicates, in order; tokens naming none).

    A token is repaired first; a token that is itself a known id is kept as written.
    """
    matched: list[str] = []
    unmatched: list[str] = []
    for item in raw:
        tokens = evidence_tokens(item)
        if not tokens and item:
            unmatched.append(str(item))
        for token in tokens:
            fixed = canonical_turn_id(token)
            if fixed in known:
                if fixed not in matched:
                    matched.append(fixed)
            elif token in known:
                if token not in matched:
                    matched.append(token)
            else:
                unmatched.append(token)
    return matched, unmatched


def turn_vector_id(conv_id: str, turn_id: str) -> str:
    """The id of a turn's vector in the vector index."""
    return f"{conv_id}|{turn_id}"


__all__ = ["canonical_turn_id", "evidence_tokens", "normalise_evidence", "turn_vector_id"]
