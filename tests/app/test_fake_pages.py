"""The Ask and Records pages run against a small fake of the services protocol (no store, no
model, no build): the pages reach memory only through ``MemoryServices``, so a fake is enough
to draw them, and what they show is what the fake computed.

The fake (``fake_services.py``) is checked against the protocol first: every method it
implements has the protocol's parameters, so the pages meet the same calls as with ``Services``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.services import api
from tests.app import fake_services as fake
from tests.app.conftest import ROOT, all_text, button, html_bodies, no_errors, record_rows, widget

PROTOCOLS = {"imports": api.ImportsApi, "queries": api.QueriesApi, "builds": api.BuildsApi,
             "curation": api.CurationApi, "evaluation": api.EvaluationApi, "access": api.AccessApi}


def _params(fn: Callable[..., object]) -> list[tuple[str, object, bool]]:
    return [(p.name, p.kind, p.default is inspect.Parameter.empty)
            for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_the_fake_implements_the_protocol_it_stands_in_for() -> None:
    for part, cls in fake.PARTS.items():
        protocol = PROTOCOLS[part]
        own = [n for n, v in vars(cls).items() if callable(v) and not n.startswith("_")]
        assert own, part
        for name in own:
            assert hasattr(protocol, name), f"{part}.{name} is not in {protocol.__name__}"
            assert _params(getattr(cls, name)) == _params(getattr(protocol, name)), f"{part}.{name}"
    facade = [n for n in dir(api.MemoryServices) if not n.startswith("_")]
    assert all(hasattr(fake.FakeServices, n) or n in vars(fake.FakeServices(Path("/nonexistent")))
               for n in facade)
    with pytest.raises(fake.NotFaked):
        fake.FakeServices(Path("/nonexistent")).builds.build(fake.CONV)


@pytest.fixture
def fake_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[fake.FakeServices,
                                                                              Callable[..., AppTest]]]:
    """(the fake, ``open(page, **query)``): the real app.py and page over the fake."""
    import components.services

    services = fake.FakeServices(tmp_path / "home")
    monkeypatch.setenv("MNEMOSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(components.services, "_open", lambda home: services)

    def make(page: str, **query: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        at.query_params.update(query)
        at.run()
        no_errors(at)
        at.switch_page(page).run()
        no_errors(at)
        return at

    yield services, make


def test_records_page_lists_searches_and_marks_wrong_through_the_protocol(fake_app) -> None:
    services, open_page = fake_app
    at = open_page("pages/records.py", conv=fake.CONV)
    rows = record_rows(at)
    page = services.curation.search_records(fake.CONV)
    assert list(rows["id"]) == [r.id for r in page.rows] and len(rows) == len(fake.FACTS)
    assert "access.record_read page Records" in services.data.calls  # the frame's page view
    # a search: the fake's word match decides which rows the table gets
    widget(at.text_input, "Search records").input("whippet").run()
    no_errors(at)
    expected = [r.id for r in services.curation.search_records(fake.CONV, query="whippet").rows]
    assert list(record_rows(at)["id"]) == expected and 0 < len(expected) < len(fake.FACTS)
    # the open record's pane shows its evidence turn from the fake's conversation
    record = services.imports.record(widget(at.selectbox, "Open record").value)
    turn = services.imports.turns(fake.CONV, record.evidence_turn_ids)[0]
    assert turn.text.split()[0] in all_text(at)
    # marked wrong from the open record: one versioned edit in the fake, shown on the next draw
    button(at, f"✗ Wrong {record.id}").click().run()
    no_errors(at)
    changed = services.imports.record(record.id)
    assert (changed.status.value, changed.version) == ("wrong", record.version + 1)
    assert [e.action for e in services.curation.record_history(record.id)] == ["mark_wrong"]
    assert record_rows(at).set_index("id").loc[record.id, "status"] == "wrong"


def test_ask_page_answers_from_the_fake_and_reopens_the_trace(fake_app) -> None:
    services, open_page = fake_app
    at = open_page("pages/ask.py", conv=fake.CONV)
    assert widget(at.selectbox, "Strategy").options == services.queries.strategies()
    widget(at.text_input, "Question").input("Which dog did Tomas adopt?")
    button(at, "Ask").click().run()
    no_errors(at)
    assert "queries.ask" in services.data.calls
    trace = services.queries.trace(at.query_params["trace"])
    assert trace.answer.text in {r.value for r in services.curation.records(fake.CONV)}
    body = html_bodies(at)
    assert 'class="mn-answer"' in body and trace.answer.text in body
    for tid in trace.answer.cited_turn_ids:  # citations link to the buffer turns
        anchor = "turn-" + "".join(c if c.isalnum() else "-" for c in tid)
        assert f'href="#{anchor}"' in body
    # the past question is listed, and a new session reopens the trace from the URL
    again = open_page("pages/ask.py", conv=fake.CONV, trace=trace.id)
    assert trace.question in all_text(again)
    assert "Past questions (1)" in [e.label for e in again.expander]
