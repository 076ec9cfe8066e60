"""Hand-made inputs shared by the import tests."""

from __future__ import annotations

from typing import Any


def locomo_sample(sample_id: str = "conv-t", **overrides: Any) -> dict[str, Any]:
    """A small LoCoMo sample: two sessions, a caption, three questions."""
    conversation: dict[str, Any] = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat last Saturday."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! What is her name?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Miso. Here she is.",
             "img_url": ["https://example.org/miso.jpg", "https://example.org/2.jpg"],
             "blip_caption": "a photo of a grey cat on a sofa", "query": "grey cat"},
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "How is Miso?"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "She learned to open doors."},
        ],
        "session_3_date_time": "9:00 am on 1 July, 2023",
        "session_3": [],
    }
    sample: dict[str, Any] = {
        "sample_id": sample_id,
        "conversation": conversation,
        "qa": [
            {"question": "What is the cat's name?", "answer": "Miso", "evidence": ["D1:3"], "category": 4},
            {"question": "When was the cat adopted?", "answer": 2023, "evidence": ["D1:1; D2:02"],
             "category": 2},
            {"question": "What did Ben adopt?", "evidence": ["D:1:2", "D9:9"], "category": 5,
             "adversarial_answer": "a cat"},
        ],
        "observation": {"session_1_observation": {"Ana": [["Ana adopted a cat.", "D1:1"]]}},
        "session_summary": {"session_1_summary": "Ana tells Ben about her cat."},
        "event_summary": {"events_session_1": {"Ana": ["Ana adopts a cat."], "date": "8 May, 2023"}},
    }
    sample.update(overrides)
    return sample
