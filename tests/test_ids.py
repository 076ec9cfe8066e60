"""The one evidence-id normaliser and the vector id of a turn."""

from __future__ import annotations

from memory_core.ids import canonical_turn_id, evidence_tokens, normalise_evidence, turn_vector_id


def test_canonical_turn_ids() -> None:
    assert [canonical_turn_id(x) for x in ("D:11:26", "D30:05", "D01:2", "D1:2", "S1-3")] == [
        "D11:26", "D30:5", "D1:2", "D1:2", "S1-3"]


def test_evidence_tokens_split_composites() -> None:
    assert evidence_tokens(" D8:6; D9:17,D1:1  D2:2 ") == ["D8:6", "D9:17", "D1:1", "D2:2"]
    assert evidence_tokens(12) == ["12"] and evidence_tokens("") == []


def test_normalise_evidence_repairs_dedupes_and_reports_the_unmatched() -> None:
    known = {"D1:2", "D8:6", "D9:17", "custom-7"}
    matched, unmatched = normalise_evidence(["D8:6; D9:17", "D:1:2", "D1:02", "custom-7", "D4:4", " "], known)
    assert matched == ["D8:6", "D9:17", "D1:2", "custom-7"]
    assert unmatched == ["D4:4", " "]
    assert normalise_evidence([], known) == ([], [])


def test_turn_vector_id() -> None:
    assert turn_vector_id("conv-26", "D1:2") == "conv-26|D1:2"
