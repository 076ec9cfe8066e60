"""LoCoMo import: hand-made samples, and agreement with the bench's independent loader."""

from __future__ import annotations

import importlib.util
import sys
from datetime import datetime

import pytest

from memory_core.errors import IngestError
from memory_core.ingest import load_file

from .samples import locomo_sample


def test_official_layout_keeps_turns_captions_dates_and_qa(write):
    loaded = load_file(write("data.json", [locomo_sample("conv-a"), locomo_sample("conv-b")]))
    assert loaded.format == "locomo"
    assert len(loaded.warnings) == 2 and all("'D9:9'" in w for w in loaded.warnings)
    assert [c.id for c in loaded.conversations] == ["conv-a", "conv-b"]
    conv = loaded.conversations[0]
    assert conv.speakers == ("Ana", "Ben")
    assert conv.source_format == "locomo" and conv.source_name == "data.json"
    # the empty session_3 is skipped; sessions keep the source's numbers
    assert [s.index for s in conv.sessions] == [1, 2]
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert [t.index for t in conv.sessions[0].turns] == [0, 1, 2]
    s1 = conv.sessions[0]
    assert s1.time == datetime(2023, 5, 8, 13, 56)
    assert s1.time_text == "1:56 pm on 8 May, 2023"
    assert all(t.session_time == datetime(2023, 5, 8, 13, 56) for t in s1.turns)
    assert conv.sessions[1].time == datetime(2023, 6, 27, 10, 37)
    pic = conv.turns[2]
    assert pic.image_caption == "a photo of a grey cat on a sofa"
    assert pic.image_url == "https://example.org/miso.jpg"  # first url of the list
    assert pic.render() == "Ana: Miso. Here she is. [image: a photo of a grey cat on a sofa]"


def test_qa_ids_evidence_normalisation_and_meta(write):
    path = write("one.json", locomo_sample("conv-q"))
    loaded = load_file(path)  # a single sample object, not a list
    conv = loaded.conversations[0]
    q0, q1, q2 = conv.qa
    assert (q0.qid, q0.question, q0.answer, q0.evidence, q0.category) == (
        0, "What is the cat's name?", "Miso", ("D1:3",), 4)
    assert q1.answer == "2023"  # numbers become text
    assert q1.evidence == ("D1:1", "D2:2")  # "D1:1; D2:02" split and repaired
    assert q2.qid == 2 and q2.category == 5 and q2.adversarial_answer == "a cat" and q2.answer is None
    assert q2.evidence == ("D1:2",)  # "D:1:2" repaired, "D9:9" names no turn
    assert conv.meta["unmatched_evidence"] == {"2": ["D9:9"]}
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith(f"{path}: $.qa: 1 evidence id(s) name no turn")
    assert "'D9:9'" in loaded.warnings[0]
    assert set(conv.meta) == {"observation", "session_summary", "event_summary", "unmatched_evidence"}
    assert conv.meta["session_summary"] == {"session_1_summary": "Ana tells Ben about her cat."}


def test_missing_ids_come_from_the_file_name_and_positions(write):
    sample = locomo_sample()
    del sample["sample_id"]
    for turn in sample["conversation"]["session_2"]:
        del turn["dia_id"]
    conv = load_file(write("my chat.json", sample)).conversations[0]
    assert conv.id == "my-chat"
    assert [t.id for t in conv.turns][-2:] == ["D2:1", "D2:2"]


def test_flat_layout_is_named_after_the_file(write):
    sample = locomo_sample()
    flat = {**sample["conversation"], "qa": sample["qa"]}
    conv = load_file(write("26.json", flat)).conversations[0]
    assert conv.id == "conv-26"
    assert len(conv.turns) == 5 and len(conv.qa) == 3


def test_unreadable_session_date_is_a_warning(write):
    sample = locomo_sample()
    sample["conversation"]["session_2_date_time"] = "sometime after lunch"
    loaded = load_file(write("d.json", sample))
    conv = loaded.conversations[0]
    assert conv.sessions[1].time is None and conv.sessions[1].time_text == "sometime after lunch"
    assert conv.sessions[1].turns[0].session_time is None
    assert any("$.conversation.session_2_date_time" in w and "cannot read the session date" in w
               for w in loaded.warnings)


@pytest.mark.parametrize(
    ("mutate", "where", "what"),
    [
        (lambda s: s["conversation"]["session_2"][1].update(speaker=7),
         "$[0].conversation.session_2[1].speaker", "expected a string, got number"),
        (lambda s: s["conversation"]["session_2"][1].pop("speaker"),
         "$[0].conversation.session_2[1].speaker", "missing"),
        (lambda s: s["conversation"].update(session_2={"speaker": "Ana"}),
         "$[0].conversation.session_2", "expected a list of turns, got object"),
        (lambda s: s["conversation"]["session_2"][1].update(dia_id="D1:2"),
         "$[0].conversation.session_2[1]",
         "duplicate turn id 'D1:2' (first at $[0].conversation.session_1[1])"),
        (lambda s: s["conversation"]["session_1"][0].update(text="  "),
         "$[0].conversation.session_1[0]", "neither text nor image caption"),
        (lambda s: s.update(qa={"question": "?"}), "$[0].qa", "expected a list, got object"),
        (lambda s: s["qa"][1].update(category="temporal"), "$[0].qa[1].category", "expected a whole number"),
        (lambda s: s["qa"][0].pop("question"), "$[0].qa[0].question", "missing"),
        (lambda s: s.pop("conversation"), "$[0]", "missing 'conversation'"),
        (lambda s: s["conversation"]["session_1"].append("hello"),
         "$[0].conversation.session_1[3]", "expected a turn object, got string"),
    ],
)
def test_wrong_shapes_name_the_json_path(write, mutate, where, what):
    sample = locomo_sample()
    mutate(sample)
    path = write("bad.json", [sample])
    with pytest.raises(IngestError) as err:
        load_file(path, fmt="locomo")
    assert err.value.file == str(path)
    assert err.value.where == where
    assert what in err.value.what
    assert "\n" not in str(err.value)


def test_agrees_with_the_bench_loader(bench):
    """Turn ids, turn text and normalised evidence match bench/locomo.py on the dev split."""
    loader, data = bench("locomo.py"), bench("locomo_dev.json")
    spec = importlib.util.spec_from_file_location("bench_locomo", loader)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_locomo"] = module
    try:
        spec.loader.exec_module(module)
        reference = module.load_dataset(data)
    finally:
        sys.modules.pop("bench_locomo", None)
    ours = load_file(data).conversations
    assert [c.conv_id for c in reference] == [c.id for c in ours]
    for ref, conv in zip(reference, ours, strict=True):
        assert [t.dia_id for t in ref.turns] == [t.id for t in conv.turns]
        assert [t.text for t in ref.turns] == [
            f"{t.text} [image: {t.image_caption}]" if t.image_caption else t.text for t in conv.turns]
        assert sorted(ref.sessions) == [s.index for s in conv.sessions]
        assert [q.evidence for q in ref.qa] == [list(q.evidence) for q in conv.qa]
        assert [q.category for q in ref.qa] == [q.category for q in conv.qa]
    assert sum(len(c.turns) for c in ours) == sum(len(c.turns) for c in reference)
