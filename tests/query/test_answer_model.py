"""The answer's pieces, its model and its support check: constituents are whole, the model is
fitted (and learns), a corrected record answers, a model's answer is graded by its evidence."""

from __future__ import annotations

from datetime import datetime

from memory_core.backends.offline.answer_model import (
    AnswerModel,
    Option,
    calibrate,
    calibrate_doubt,
    default_model,
    fit,
)
from memory_core.backends.offline.answering import extractive_answer, gathered
from memory_core.backends.offline.compose import Choice
from memory_core.backends.offline.constituents import constituents
from memory_core.backends.offline.nlp import parse_many
from memory_core.backends.offline.planner import plan_question
from memory_core.contracts import Vocabulary
from memory_core.embeddings import shared_embedder
from memory_core.models import BufferTurn, Modality, Plan, Record, Requirement, SupportLevel, Turn
from memory_core.query.buffer import buffer_turn
from memory_core.query.grounding import grade

EMBED = shared_embedder().embed
VOCAB = Vocabulary(speakers=("Nadia", "Tomas"), entities=(("Biscuit", "animal"),), properties=("learns",))
MAY = datetime(2023, 5, 8, 18, 30)


def _turn(turn_id: str, speaker: str, text: str) -> BufferTurn:
    session, index = turn_id[1:].split(":")
    turn = Turn(id=turn_id, session=int(session), index=int(index) - 1, speaker=speaker, text=text,
                session_time=MAY)
    return buffer_turn(turn, None, {})


def _record(value: str, *, origin: str = "offline", version: int = 1, prop: str = "learns") -> Record:
    return Record(id="r1", conv_id="c", episode_id="c:S1:E1", entity="Nadia", entity_type="person",
                  property=prop, value=value, modality=Modality.OBSERVED, evidence_turn_ids=("D1:2",),
                  origin=origin, version=version)


def test_constituents_are_whole_pieces_of_the_sentence() -> None:
    sentence = "She tripped over a loose cable at the old boathouse on Friday."
    found = constituents(parse_many([sentence])[0])
    texts = [c.text for c in found]
    assert any("loose cable" in t for t in texts) and any("boathouse" in t for t in texts)
    assert any(t.startswith("tripped over") for t in texts)  # the predicate without its subject
    for c in found:
        assert c.text in sentence  # a piece of the sentence, as written
        last = c.text.split()[-1].lower()
        assert last not in {"a", "the", "at", "on", "over", "of", "to", "and"}  # never a dangling word


def test_the_fit_learns_which_features_mark_right_options() -> None:
    good = {"bias": 1.0, "kind=place": 1.0}
    bad = {"bias": 1.0, "kind=np": 1.0}
    model = fit([[(good, 1.0), (bad, 0.0)] for _ in range(30)], epochs=300)
    p_good, p_bad = model.probabilities([good, bad])
    assert p_good > 0.7 > 0.3 > p_bad
    again = AnswerModel.from_json(model.to_json())
    assert abs(again.probabilities([good, bad])[0] - p_good) < 1e-3


def test_calibration_takes_the_lowest_probability_that_keeps_precision() -> None:
    chosen = [(0.9 - k / 100, True) for k in range(20)] + [(0.5, False), (0.4, False), (0.3, True)]
    at = calibrate(chosen, precision=0.9, min_n=10)
    right = [ok for p, ok in chosen if p >= at]
    assert sum(right) / len(right) >= 0.9 and at <= 0.71
    assert calibrate([(0.9, False)] * 20, precision=0.9) == 1.0  # never precise enough: nothing supported


def test_doubt_takes_the_highest_probability_below_which_answers_were_rarely_right() -> None:
    unsure = [(k / 100, False) for k in range(1, 20)] + [(0.08, True)]
    chosen = unsure + [(0.3 + k / 100, True) for k in range(10)]
    at = calibrate_doubt(chosen, most_right=0.1, min_n=10)
    doubted = [ok for p, ok in chosen if p <= at]
    assert at == 0.3 and sum(doubted) / len(doubted) <= 0.1  # one more (0.31, right) would pass 10 %
    assert calibrate_doubt([(0.1, True)] * 20) == 0.0  # right even when unsure: nothing is a guess
    tied = [(0.2, False)] * 5 + [(0.2, True)] * 5 + [(0.1, False)] * 10
    assert calibrate_doubt(tied) == 0.1  # never between two answers of the same probability


def test_an_unsure_first_choice_is_shown_as_a_guess_and_a_piece_that_fits_the_form_is_not() -> None:
    question = "What does Nadia think of the new bakery?"
    plan = plan_question(question, VOCAB)
    buffer = [_turn("D1:1", "Tomas", "Have you tried the new bakery? I adopted a tortoise called Pebble."),
              _turn("D1:2", "Nadia", "The new bakery sells sourdough that tastes like cardboard.")]
    sure = extractive_answer(question, plan, buffer, unmentioned=(), parse=parse_many, embed=EMBED,
                             model=AnswerModel(weights=default_model().weights, supported_at=1.0))
    assert sure.support == SupportLevel.WEAK and sure.supported and sure.confidence is not None
    doubting = AnswerModel(weights=default_model().weights, supported_at=1.0, doubtful_at=0.999)
    guess = extractive_answer(question, plan, buffer, unmentioned=(), parse=parse_many, embed=EMBED,
                              model=doubting)
    assert guess.text == sure.text and guess.cited_turn_ids == sure.cited_turn_ids  # the same answer shown
    assert guess.support == SupportLevel.UNKNOWN and not guess.supported  # marked as a guess
    named = "What is the name of Tomas's tortoise?"
    pick = extractive_answer(named, plan_question(named, VOCAB), buffer, unmentioned=(), parse=parse_many,
                             embed=EMBED, model=doubting)
    assert pick.text.startswith("Pebble") and pick.support == SupportLevel.WEAK  # picked as a name: no guess


def test_a_corrected_record_answers_and_without_it_the_turn_does() -> None:
    question = "What does Nadia learn?"
    plan = plan_question(question, VOCAB)
    buffer = [_turn("D1:1", "Tomas", "How is the evening class going?"),
              _turn("D1:2", "Nadia", "I learn to throw pots on the wheel every Tuesday.")]
    corrected = _record("wheel-thrown pottery at the community studio", origin="annotator", version=2)
    answer = extractive_answer(question, plan, buffer, unmentioned=(), parse=parse_many, embed=EMBED,
                               records=[corrected])
    assert answer.text.startswith("wheel-thrown pottery at the community studio")
    assert answer.record_ids == ("r1",) and answer.cited_turn_ids == ("D1:2",)
    assert answer.support == SupportLevel.SUPPORTED
    # without the record (marked wrong or deleted: no longer active, so not matched) the turn answers
    plain = extractive_answer(question, plan, buffer, unmentioned=(), parse=parse_many, embed=EMBED,
                              records=[])
    assert "wheel-thrown" not in plain.text and plain.record_ids == ()


def test_yes_no_answers_keep_the_sentence_that_decides_them() -> None:
    question = "Did Nadia go to the lake?"
    buffer = [_turn("D2:3", "Nadia", "We never made it to the lake, the car broke down.")]
    plan = plan_question(question, VOCAB)
    answer = extractive_answer(question, plan, buffer, unmentioned=(), parse=parse_many, embed=EMBED)
    assert answer.text.startswith("No") and answer.quote is not None and "lake" in answer.quote


def test_a_model_answer_is_supported_only_when_its_words_are_in_the_cited_turns() -> None:
    plan = Plan(question="Where does Nadia take the class?",
                requirements=(Requirement(entity="Nadia", property="takes", role="target"),))
    turn = _turn("D1:2", "Nadia", "The class is at Kleipunt, a little studio by the canal.")
    assert grade("Kleipunt [D1:2]", plan, [turn], [], claimed=True) == SupportLevel.SUPPORTED
    assert grade("a gallery in Ghent", plan, [turn], [], claimed=True) == SupportLevel.WEAK  # not said there
    assert grade("Kleipunt", plan, [turn], [], claimed=False) == SupportLevel.WEAK  # the model was unsure
    stranger = _turn("D1:9", "Tomas", "The class is at Kleipunt, a little studio by the canal.")
    assert grade("Kleipunt", plan, [stranger], [], claimed=True) == SupportLevel.WEAK  # Nadia is not in it
    assert grade("Unknown", plan, [turn], [], claimed=False) == SupportLevel.UNKNOWN
    assert grade("7 May 2023", plan, [turn], [], claimed=True) == SupportLevel.SUPPORTED  # a resolved date


def test_sentences_do_not_end_after_an_abbreviation_or_an_initial() -> None:
    from memory_core.backends.offline.answering import sentences

    said = "We played at the Blue Gull, a bar in St. Ives. It was packed! Dr. Okafor came. J. Mbeki too."
    assert sentences(said) == ["We played at the Blue Gull, a bar in St. Ives.", "It was packed!",
                               "Dr. Okafor came.", "J. Mbeki too."]


def test_a_stop_inside_a_number_or_a_version_ends_no_sentence() -> None:
    from memory_core.backends.offline.answering import sentences

    said = "The plan costs $14.50 a month. I moved to Django 4.2 last week, e.g. for async views.\nfoo.bar()"
    assert sentences(said) == ["The plan costs $14.50 a month.",
                               "I moved to Django 4.2 last week, e.g. for async views.", "foo.bar()"]


def test_a_pronoun_object_stays_with_its_verb() -> None:
    texts = [c.text for c in constituents(parse_many(["Ines told me to call her, and I love it."])[0])]
    assert "call her" in texts and not any(t.endswith(("call", "love")) for t in texts)


def test_a_noun_phrase_the_parse_left_hanging_is_a_piece_too() -> None:
    # talk opens with fragments the parser attaches to nothing ("dep"); spaCy's noun chunks skip
    # them, so the phrase is offered by itself, as what its verb is about
    from spacy.tokens import Doc

    from memory_core.backends.offline.nlp import get_nlp
    said = ["Restoring", "vintage", "radios", "—", "it", "'s", "been", "my", "dream", "."]
    doc = Doc(get_nlp().vocab, words=said, heads=[2, 2, 6, 6, 6, 6, 6, 8, 6, 6],
              deps=["amod", "compound", "dep", "punct", "nsubj", "aux", "ROOT", "poss", "attr", "punct"],
              pos=["VERB", "NOUN", "NOUN", "PUNCT", "PRON", "AUX", "AUX", "PRON", "NOUN", "PUNCT"],
              lemmas=["restore", "vintage", "radio", "—", "it", "be", "be", "my", "dream", "."])
    found = {c.text: c for c in constituents(doc)}
    assert "vintage radios" in found, list(found)
    assert (found["vintage radios"].head_dep, found["vintage radios"].head_lemma) == ("dobj", "restore")


def test_a_number_keeps_its_percent_and_currency_signs() -> None:
    said = "Her score rose from 61% to 74% and the fee is £45."
    texts = [c.text for c in constituents(parse_many([said])[0])]
    assert "61% to 74%" in texts and "£45" in texts


def _item(text: str, turn: BufferTurn) -> Choice:
    option = Option(text=text, kind="np", target="list", sentence_score=1.0, sentence_rank=0, novelty=1.0,
                    overlap=0.0, distance=0.0, attached=False, proper=0.0, words=len(text.split()),
                    head_match=False, asked_name=False, speaker_is_asked=True)
    return Choice(option, text, turn)


def test_a_list_keeps_only_items_near_the_best_ones_probability() -> None:
    turns = [_turn("D1:2", "Nadia", "I took up rowing."), _turn("D2:4", "Nadia", "Chess club is fun."),
             _turn("D3:1", "Nadia", "Anyway, whatever.")]
    scored = [(0.5, _item("rowing", turns[0])), (0.3, _item("chess club", turns[1])),
              (0.05, _item("whatever", turns[2]))]
    plan = Plan(question="What hobbies does Nadia have?", answer_target="list",
                requirements=(Requirement(entity="Nadia", entity_type="person", property="hobby"),))
    assert gathered(plan, scored, [], AnswerModel()).text.startswith("rowing, chess club, whatever")
    floored = AnswerModel(gather_floor=0.5)
    answer = gathered(plan, scored, [], floored)
    assert answer.text.startswith("rowing, chess club [") and answer.cited_turn_ids == ("D1:2", "D2:4")
    assert AnswerModel.from_json(floored.to_json()).gather_floor == 0.5


def test_a_lone_option_or_a_form_never_calibrated_is_not_supported() -> None:
    model = AnswerModel(supported_at=1.0, supported_at_by_target={"time": 0.7})
    assert model.supports(0.8, "time", 3) and not model.supports(0.6, "time", 3)
    assert not model.supports(1.0, "time", 1)  # the only option: probability 1 by construction
    assert not model.supports(1.0, "value", 4)  # no probability made value answers right often enough
    question = "What did Nadia bake for the party?"
    buffer = [_turn("D1:1", "Nadia", "Oh, the party!")]  # one sentence, nothing in it but a quote
    # a model sure of every form: only the lone option keeps the quote from being supported
    sure_of_all = AnswerModel(weights=default_model().weights, supported_at=0.0)
    answer = extractive_answer(question, plan_question(question, VOCAB), buffer, unmentioned=(),
                               parse=parse_many, embed=EMBED, model=sure_of_all)
    assert answer.support != SupportLevel.SUPPORTED, answer
