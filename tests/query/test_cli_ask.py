"""``python -m memory_core ask``: the answer and the trace, as text and as JSON."""

from __future__ import annotations

import json

import pytest

from memory_core.cli import main
from memory_core.models import Trace


def _imported(settings, embedder, conversation) -> None:
    from memory_core.services import Services

    services = Services(settings, embedder=embedder)
    services.raw_store().save_conversation(conversation)
    services.close()


def test_ask_prints_answer_and_trace(settings, embedder, conversation, capsys) -> None:
    _imported(settings, embedder, conversation)
    code = main(
        ["--home", str(settings.home), "ask", "--conv", "conv-test", "When did Alice adopt her puppy?"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == "answer: 7 May 2023 [D1:1]"
    assert "plan: target=time reasoning=temporal scope=point" in out
    assert "r0 [target] entity=Alice" in out
    assert "[[adopted]]" in out and "[[puppy]]" in out  # highlighted words
    assert "timings:" in out and "buffer:" in out


def test_ask_json_is_the_persisted_trace(settings, embedder, conversation, capsys) -> None:
    _imported(settings, embedder, conversation)
    code = main(
        [
            "--home",
            str(settings.home),
            "ask",
            "--conv",
            "conv-test",
            "Where did Bob hike?",
            "--strategy",
            "bm25",
            "--budget-tokens",
            "60",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    trace = Trace.model_validate(json.loads(out))
    assert trace.strategy == "bm25" and trace.budget_tokens == 60 and trace.buffer_tokens <= 60
    from memory_core.services import Services

    services = Services(settings, embedder=embedder)
    try:
        assert services.queries.trace(trace.id) == trace
    finally:
        services.close()


def test_ask_unknown_conversation_is_one_line_error(settings, capsys) -> None:
    code = main(["--home", str(settings.home), "ask", "--conv", "nope", "anything?"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and "nope" in err and len(err.strip().splitlines()) == 1


def test_ask_as_of_a_date(settings, embedder, conversation, capsys) -> None:
    _imported(settings, embedder, conversation)
    home = ["--home", str(settings.home), "ask", "--conv", "conv-test", "Where did Bob hike last week?"]
    assert main([*home, "--as-of", "2023-07-19", "--json"]) == 0
    trace = Trace.model_validate(json.loads(capsys.readouterr().out))
    assert trace.details["asked_at"] == "2023-07-19 00:00"
    assert trace.details["date_ranges"] == [["2023-07-10", "2023-07-16", "last week"]]
    with pytest.raises(SystemExit) as stop:
        main([*home, "--as-of", "next tuesday"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "--as-of: expected a date YYYY-MM-DD" in err[-1] and "'next tuesday'" in err[-1]
