"""Fitting the offline answer model on asked questions: weights, support thresholds and the
list-item floor all come out of the fit, and a refit of the written parameters reads back."""

from __future__ import annotations

from datetime import datetime

from memory_core.backends.offline.answer_model import AnswerModel
from memory_core.backends.offline.nlp import parse_many
from memory_core.backends.offline.planner import plan_question
from memory_core.contracts import Vocabulary
from memory_core.embeddings import shared_embedder
from memory_core.eval.answer_fit import GATHER_FLOORS, Sample, fit_answer_model
from memory_core.models import BufferTurn, Turn
from memory_core.query.buffer import buffer_turn

VOCAB = Vocabulary(speakers=("Nadia", "Tomas"), entities=(), properties=())
MARCH = datetime(2024, 3, 9, 11, 0)
TURNS = (
    ("D1:1", "Nadia", "Rowing is my favourite sport now, every Saturday on the canal."),
    ("D1:2", "Tomas", "Nice! I adopted a tortoise called Pebble last week."),
    ("D1:3", "Nadia", "My other sport is tennis, with my cousin Ines at the park."),
    ("D1:4", "Tomas", "Whatever, the weather is grey again."),
    ("D2:1", "Nadia", "My new job at the Harbour Library starts in April."),
)
ASKED = (
    ("What sports does Nadia do?", "rowing, tennis"),
    ("What is the name of Tomas's tortoise?", "Pebble"),
    ("Where will Nadia work?", "Harbour Library"),
    ("Who does Nadia play tennis with?", "her cousin Ines"),
)


def _buffer() -> tuple[BufferTurn, ...]:
    out = []
    for turn_id, speaker, text in TURNS:
        session, index = turn_id[1:].split(":")
        turn = Turn(id=turn_id, session=int(session), index=int(index) - 1, speaker=speaker, text=text,
                    session_time=MARCH)
        out.append(buffer_turn(turn, None, {}))
    return tuple(out)


def test_the_fit_sets_weights_thresholds_and_a_list_floor_that_read_back() -> None:
    buffer = _buffer()
    samples = [Sample(source="invented.json", conv_id="c", qid=k, category=4, question=q, gold=gold,
                      plan=plan_question(q, VOCAB), buffer=buffer, records=(), unmentioned=())
               for k, (q, gold) in enumerate(ASKED)]
    model, report = fit_answer_model(samples, parse_many, embed=shared_embedder().embed)
    assert 2 <= report["fitted_on"] <= len(ASKED) and report["options"] > len(ASKED)
    assert model.weights and 0.0 <= report["chosen_f1"] <= report["best_option_f1"] <= 1.0
    assert model.gather_floor in GATHER_FLOORS
    assert set(report["gathered_f1_by_floor"]) == {f"{f:.1f}" for f in GATHER_FLOORS}  # the list was tried
    again = AnswerModel.from_json(model.to_json())
    assert again.gather_floor == model.gather_floor and again.weights.keys() == {
        k for k, v in model.weights.items() if abs(v) >= 1e-5}


def test_a_refit_that_keeps_the_weights_only_calibrates_the_thresholds() -> None:
    buffer = _buffer()
    samples = [Sample(source="invented.json", conv_id="c", qid=k, category=4, question=q, gold=gold,
                      plan=plan_question(q, VOCAB), buffer=buffer, records=(), unmentioned=())
               for k, (q, gold) in enumerate(ASKED)]
    given = AnswerModel(weights={"kind=person": 0.7, "proper": 0.4, "kind=sentence": -1.0},
                        doubtful_at=0.9, gather_floor=0.7)
    model, report = fit_answer_model(samples, parse_many, embed=shared_embedder().embed, weights_of=given)
    assert model.weights == given.weights and report["weights"] == "kept"
    assert model.gather_floor in GATHER_FLOORS and 0.0 <= model.doubtful_at < 0.9  # calibrated anew
    again = AnswerModel.from_json(model.to_json())
    assert again.doubtful_at == round(model.doubtful_at, 4)


DONE = (("baked bread", "bake bread"), ("painted the fence", "paint the fence"),
        ("visited Lyon", "visit Lyon"), ("swam in the lake", "swim in the lake"),
        ("ran a half marathon", "run a half marathon"), ("planted tulips", "plant tulips"),
        ("fixed the bike", "fix the bike"), ("sold the old car", "sell the old car"),
        ("climbed the hill", "climb the hill"), ("watched a play", "watch a play"),
        ("cooked paella", "cook paella"), ("repaired the roof", "repair the roof"))


def test_support_is_calibrated_on_the_answers_shown_not_on_the_models_top_option() -> None:
    """A time answer is the time said in the best sentence (``_timed``), whatever option the
    model scores highest: here the model prefers whole sentences, the times shown are right,
    so times get a threshold — and none when the times shown are wrong."""
    prefers_sentences = AnswerModel(weights={"kind=sentence": 3.0})

    def samples(gold: str) -> list[Sample]:
        out = []
        for k, (did, do) in enumerate(DONE):
            said = f"I {did} yesterday, it was lovely."
            turn = Turn(id="D1:1", session=1, index=0, speaker="Nadia", text=said, session_time=MARCH)
            q = f"When did Nadia {do}?"
            out.append(Sample(source="invented.json", conv_id="c", qid=k, category=2, question=q, gold=gold,
                              plan=plan_question(q, VOCAB), buffer=(buffer_turn(turn, None, {}),), records=(),
                              unmentioned=()))
        return out

    model, report = fit_answer_model(samples("8 March 2024"), parse_many, embed=shared_embedder().embed,
                                     weights_of=prefers_sentences)
    assert model.threshold("time") < 1.0 and report["supported_share"] > 0.5, report
    model, report = fit_answer_model(samples("2019"), parse_many, embed=shared_embedder().embed,
                                     weights_of=prefers_sentences)
    assert model.threshold("time") == 1.0 and report["supported_share"] == 0.0, report
