"""The premise check sits in the query pipeline: a question naming what no retrieved turn says
is "Unknown" with the names for every backend — the openai one without spending a model call.

Real services over the hand-made memory; the openai backend talks to the scripted
OpenAI-compatible server on 127.0.0.1 (tests/llm/conftest.py), whose answer stage always
answers from the excerpts — so an "Unknown" here comes from the pipeline, not from the model.
"""

from __future__ import annotations

import pytest

from memory_core.backends.openai.backend import OpenAIBackend
from memory_core.config import LLMSettings
from memory_core.models import SupportLevel
from tests.llm.conftest import FAKE_KEY, ScriptedServer
from tests.llm.conftest import server as server  # the scripted server fixture, shared

FALSE_PREMISE = "When did Carol move to Munich?"  # she moved to Berlin (D2:6)


@pytest.fixture
def llm(server: ScriptedServer, built) -> OpenAIBackend:
    settings = LLMSettings(base_url=server.url, api_key=FAKE_KEY, model="test-model", timeout_s=2.0,
                           max_retries=0)
    return OpenAIBackend(settings, built.raw_store())


def test_the_openai_backend_answers_a_false_premise_unknown_without_a_model_call(
        built, llm: OpenAIBackend, server: ScriptedServer) -> None:
    trace, _ = built.queries.ask_detailed("conv-test", FALSE_PREMISE, backend=llm)
    assert trace.backend == "openai"
    assert any(b.turn_id == "D2:6" for b in trace.buffer)  # Carol's move was retrieved, Munich is nowhere
    assert trace.answer.text == "Unknown" and not trace.answer.supported
    assert trace.answer.support == SupportLevel.UNKNOWN and trace.answer.cited_turn_ids == ()
    assert trace.answer.unmentioned == ("munich",)
    assert server.stage_calls() == {"plan": 1}  # the model planned; no answer call was spent
    assert built.queries.trace(trace.id).answer.unmentioned == ("munich",)  # the saved trace keeps it


def test_both_backends_give_the_same_unknown_for_a_false_premise(
        built, llm: OpenAIBackend) -> None:
    offline, _ = built.queries.ask_detailed("conv-test", FALSE_PREMISE)
    openai, _ = built.queries.ask_detailed("conv-test", FALSE_PREMISE, backend=llm)
    assert offline.backend == "offline" and openai.backend == "openai"
    assert offline.answer == openai.answer


def test_the_model_answers_when_the_names_are_said_or_the_question_reasons_past_the_text(
        built, llm: OpenAIBackend, server: ScriptedServer) -> None:
    said, _ = built.queries.ask_detailed("conv-test", "When did Carol move to Berlin?", backend=llm)
    assert said.answer.text != "Unknown" and said.answer.unmentioned == ()
    assert server.stage_calls().get("answer") == 1
    # a would/likely question is exempt by its form, whatever answer target the model's plan names
    likely, _ = built.queries.ask_detailed("conv-test", "Would Carol likely enjoy a trip to Munich?",
                                           backend=llm)
    assert likely.plan.answer_target != "likelihood"
    assert likely.answer.unmentioned == () and server.stage_calls().get("answer") == 2


def test_a_name_with_its_capital_after_a_small_letter_is_checked_wherever_it_stands() -> None:
    from memory_core.models import BufferTurn
    from memory_core.query.premise import question_names, unmentioned

    assert question_names("How long after buying my eReader did I join the Book Club?") == [
        ["ereader"], ["book", "club"]]
    assert question_names("eReaders: which one did I buy?") == [["ereaders"]]
    assert question_names("When did I buy the ereader?") == []  # no capital: a plain word
    said = [BufferTurn(turn_id="D1:1", speaker="user", session=1,
                       text="I joined the book club at the library last week.")]
    assert unmentioned("How long after buying my eReader did I join the Book Club?", said) == ("ereader",)
    bought = [*said, BufferTurn(turn_id="D1:2", speaker="user", session=1, text="My new eReader arrived!")]
    assert unmentioned("How long after buying my eReader did I join the Book Club?", bought) == ()
