"""A LongMemEval haystack with empty turns builds and answers: every stage tolerates them."""

from __future__ import annotations

import json
from pathlib import Path

from memory_core.services import Services


def test_empty_turns_survive_segment_extract_index_and_ask(services: Services, tmp_path: Path) -> None:
    sessions = [
        [{"role": "user", "content": "I adopted a grey cat called Miso last week.", "has_answer": True},
         {"role": "assistant", "content": ""},
         {"role": "user", "content": "She already opens the kitchen doors."},
         {"role": "assistant", "content": "   "}],
        [{"role": "user", "content": ""},
         {"role": "assistant", "content": ""}],
        [{"role": "user", "content": "Miso now sleeps on my blue sofa."},
         {"role": "assistant", "content": "Cats love sofas."}],
    ]
    item = {"question_id": "empty-1", "question_type": "single-session-user",
            "question": "What is the name of my cat?", "answer": "Miso",
            "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["a", "b", "c"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 10:00",
                               "2023/05/22 (Mon) 18:05"],
            "haystack_sessions": sessions, "answer_session_ids": ["a"]}
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    result = services.imports.import_file(path)
    assert sum("is empty" in w for w in result.warnings) == 4
    events = list(services.builds.build("empty-1"))
    assert events
    conv = services.imports.conversation("empty-1")
    assert [t.id for t in conv.turns][:4] == ["D1:1", "D1:2", "D1:3", "D1:4"]
    empty = {t.id for t in conv.turns if not t.text.strip()}
    assert empty == {"D1:2", "D1:4", "D2:1", "D2:2"}
    records = services.raw_store().records("empty-1")
    assert records and not any(set(r.evidence_turn_ids) <= empty for r in records)
    trace = services.queries.ask("empty-1", "What is the name of my cat?")
    assert "D1:1" in {b.turn_id for b in trace.buffer}
