"""Property tests: random bytes and random JSON only ever raise IngestError.

Whatever is accepted must also be storable (saved in a transaction that is rolled back).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.config import ImportLimits
from memory_core.errors import IngestError
from memory_core.ingest import FORMATS, load_file
from memory_core.store import Store

LIMITS = ImportLimits(max_file_mb=1, max_turn_chars=500, max_depth=16, max_turns=2_000)
FORMAT_CHOICES = st.sampled_from([None, *FORMATS])
RUN = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# keys the importers look for, so random objects often reach the deeper checks
KEYS = ["sample_id", "conversation", "speaker_a", "speaker_b", "session_1", "session_2",
        "session_1_date_time", "dia_id", "speaker", "text", "img_url", "blip_caption", "qa",
        "question", "answer", "evidence", "category", "adversarial_answer", "observation",
        "question_id", "question_date", "haystack_sessions", "haystack_dates",
        "haystack_session_ids", "answer_session_ids", "role", "content", "has_answer",
        "conversation_id", "turns", "session", "session_time", "turn_id", "image_caption",
        "image_url", "speakers", "meta", "question_time"]
LEAVES = (st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(allow_nan=True)
          | st.text(max_size=30) | st.sampled_from(["D1:1", "D1:2", "D:1:3", "D2:05; D1:1", "user",
                                                    "1:56 pm on 8 May, 2023", "2023/05/20 (Sat) 02:21",
                                                    "", " ", "\ud800"]))
JSON_VALUES = st.recursive(
    LEAVES,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), children, max_size=6),
    max_leaves=40,
)


@pytest.fixture(scope="module")
def store() -> Iterator[Store]:
    s = Store(":memory:")
    yield s
    s.close()


class _Rollback(Exception):
    pass


def _check(data: bytes, fmt: str | None, store: Store, name: str = "random.dat") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            loaded = load_file(path, fmt=fmt, limits=LIMITS)
        except IngestError as exc:
            assert str(exc).startswith(f"{path}"), str(exc)
            assert "\n" not in str(exc)
            return
    assert loaded.conversations and loaded.format in FORMATS
    try:
        with store.atomic():
            for conv in loaded.conversations:
                store.save_conversation(conv, replace=True)
            raise _Rollback
    except _Rollback:
        pass
    assert store.conversation_ids() == []


@RUN
@given(data=st.binary(max_size=2_000), fmt=FORMAT_CHOICES)
def test_random_bytes(store: Store, data: bytes, fmt: str | None) -> None:
    _check(data, fmt, store)


@RUN
@given(value=JSON_VALUES, fmt=FORMAT_CHOICES, indent=st.sampled_from([None, 1]))
def test_random_json(store: Store, value: Any, fmt: str | None, indent: int | None) -> None:
    _check(json.dumps(value, indent=indent).encode(), fmt, store, "random.json")


@RUN
@given(rows=st.lists(JSON_VALUES, min_size=1, max_size=6), fmt=st.sampled_from([None, "jsonl"]))
def test_random_jsonl(store: Store, rows: list[Any], fmt: str | None) -> None:
    _check("\n".join(json.dumps(r) for r in rows).encode(), fmt, store, "random.jsonl")


LINE = st.one_of(
    st.builds(lambda s, t: f"{s}: {t}", st.text(max_size=12), st.text(max_size=40)),
    st.builds(lambda t: f"=== {t} ===", st.text(max_size=30)),
    st.sampled_from(["## 2023-05-14", "Session 2 — 14 May 2023", "----", "", "Ana: [image: a cat]",
                     "Ben:", "speaker,text,session", "Ana,hi,1", "x,\"unterminated", "Ana,hi,0"]),
    st.text(max_size=40),
)


@RUN
@given(lines=st.lists(LINE, min_size=1, max_size=12), fmt=st.sampled_from([None, "text", "csv"]))
def test_random_text_and_csv(store: Store, lines: list[str], fmt: str | None) -> None:
    data = "\n".join(lines).encode("utf-8", errors="surrogatepass")
    _check(data, fmt, store, "random.txt")


# near-valid documents: the right skeleton with random leaves, so the field checks are exercised
WORDS = st.integers(0, 9).flatmap(  # mostly plain strings, sometimes any leaf
    lambda k: LEAVES if k == 0 else st.text(st.characters(exclude_categories=["Cc", "Cs"]), min_size=1,
                                            max_size=20))
TURN = st.fixed_dictionaries(
    {"speaker": WORDS},
    optional={"text": WORDS, "turn_id": WORDS, "session": st.integers(-1, 4) | WORDS,
              "session_time": WORDS, "image_caption": WORDS, "image_url": WORDS,
              "conversation_id": st.sampled_from(["a", "b", "", None, 3])},
)
LOCOMO_TURN = st.fixed_dictionaries(
    {"speaker": WORDS, "text": WORDS},
    optional={"dia_id": st.sampled_from(["D1:1", "D1:2", "D2:1", "x"]) | WORDS,
              "img_url": WORDS | st.lists(WORDS, max_size=2), "blip_caption": WORDS},
)
QA = st.fixed_dictionaries(
    {"question": WORDS},
    optional={"answer": WORDS | st.lists(WORDS, max_size=2), "category": st.integers(-1, 6) | WORDS,
              "evidence": st.lists(WORDS, max_size=3) | WORDS, "adversarial_answer": WORDS},
)
LOCOMO = st.builds(
    lambda sid, s1, s2, date, qa: {"sample_id": sid, "qa": qa, "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1": s1, "session_1_date_time": date, "session_2": s2}},
    st.sampled_from(["c1", "c2", 7]) | WORDS, st.lists(LOCOMO_TURN, max_size=4),
    st.lists(LOCOMO_TURN, max_size=3), WORDS, st.lists(QA, max_size=3),
)
LME_TURN = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]) | WORDS, "content": WORDS},
                                 optional={"has_answer": st.booleans() | WORDS})
LME = st.builds(
    lambda qid, sessions, dates, question: {"question_id": qid, "question": question, "answer": "x",
                                            "haystack_sessions": sessions, "haystack_dates": dates},
    st.sampled_from(["q1", "q2"]) | WORDS, st.lists(st.lists(LME_TURN, max_size=3), max_size=3),
    st.lists(WORDS, max_size=3), WORDS,
)
DOCUMENTS = st.one_of(
    st.lists(TURN, min_size=1, max_size=6),
    st.builds(lambda cid, turns, qa: {"conversation_id": cid, "turns": turns, "qa": qa},
              WORDS, st.lists(TURN, max_size=5), st.lists(QA, max_size=2)),
    st.lists(LOCOMO, min_size=1, max_size=2),
    LOCOMO,
    st.lists(LME, min_size=1, max_size=2),
)


@RUN
@given(value=DOCUMENTS)
def test_near_valid_documents(store: Store, value: Any) -> None:
    _check(json.dumps(value).encode(), None, store, "doc.json")
