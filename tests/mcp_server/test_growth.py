"""A conversation that grows: ``import --append`` / ``remember`` add sessions or turns at the
end of the last session; the build does only what is new, and the grown memory equals a full
build of the same conversation. Real DuckDB (and PostgreSQL in the slow lane), Chroma, the
embedding model and the offline backend, on a small hand-made conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory_core.cli import main
from memory_core.config import Settings
from memory_core.errors import IngestError, StoreError
from memory_core.services import Services
from tests.mcp_server.conversations import CONV, write


def build(services: Any, conv: str = CONV) -> dict[str, Any]:
    events = list(services.builds.build(conv))
    assert events[-1].kind == "build_done"
    return dict(events[-1].stats)


def memory(services: Any, conv: str = CONV) -> tuple[Any, ...]:
    store = services.raw_store()
    return ([s.model_dump() for s in store.sessions(conv)],
            [t.model_dump() for t in store.turns(conv)],
            [e.model_dump() for e in store.episodes(conv)],
            sorted((r.model_dump() for r in store.records(conv, include_inactive=True)),
                   key=lambda r: r["id"]))


def test_grown_by_whole_sessions_equals_a_full_build(services: Any, tmp_path: Path, embedder: Any) -> None:
    services.imports.import_file(write(tmp_path / "one.json", 1))
    first = build(services)
    assert first["sessions_built"] == 1
    grown = services.imports.append_file(write(tmp_path / "three.json", 3))
    assert [(g.sessions_added, g.session_extended) for g in grown] == [([2, 3], None)]
    stats = build(services)
    assert stats["sessions_built"] == 2  # session 1 is not built again
    full = Services(Settings(home=tmp_path / "full"), embedder=embedder)
    try:
        full.imports.import_file(tmp_path / "three.json")
        assert build(full)["sessions_built"] == 3
        names = ("sessions", "turns", "episodes", "records")
        for name, a, b in zip(names, memory(services), memory(full), strict=True):
            assert a == b, name
        assert memory(services)[3], "the hand-made conversation yields records"
    finally:
        full.close()


def test_turns_added_to_the_last_session_rebuild_that_session_only(services: Any, tmp_path: Path) -> None:
    services.imports.import_file(write(tmp_path / "two.json", 2))
    build(services)
    before = {e.id: e for e in services.raw_store().episodes(CONV, 1)}
    records_before = {r.id: r for r in services.raw_store().records(CONV) if r.episode_id in before}
    trace = services.queries.ask(CONV, "Where did Anna go hiking?")
    edited = next(iter(records_before.values()))
    services.curation.edit_record(edited.id, {"value": "corrected value"}, who="tester", why="check it stays",
                                  expected_version=edited.version)
    extra = [("Anna", "Tom also wants to try rock climbing in Fontainebleau in September."),
             ("Ben", "Fontainebleau is great for bouldering.")]
    grown = services.imports.append_file(write(tmp_path / "two-more.json", 2, extra=extra))
    assert grown[0].session_extended == 2 and grown[0].turn_ids == ["D2:6", "D2:7"]
    stats = build(services)
    assert stats["sessions_built"] == 1
    assert {e.id: e for e in services.raw_store().episodes(CONV, 1)} == before
    after = {r.id: r for r in services.raw_store().records(CONV) if r.episode_id in before}
    assert after.keys() == records_before.keys()
    assert after[edited.id].value == "corrected value"  # the annotator's edit stays
    assert [e.target_id for e in services.raw_store().edits(CONV)] == [edited.id]
    assert services.queries.trace(trace.id).question == trace.question  # and the trace
    session2 = [t for e in services.raw_store().episodes(CONV, 2) for t in e.turn_ids]
    assert session2[-2:] == ["D2:6", "D2:7"]  # the grown session was segmented again, whole
    assert services.raw_store().built_sessions(CONV) == {1: "offline", 2: "offline"}


def test_refused_growth_writes_nothing(services: Any, tmp_path: Path) -> None:
    services.imports.import_file(write(tmp_path / "two.json", 2))
    build(services)
    kept = memory(services)
    with pytest.raises(IngestError, match=r"session 1: differs from the stored session \(turn 'D1:3'\)"):
        services.imports.append_file(write(tmp_path / "edited.json", 3, edit=(1, 3, "Something else.")))
    with pytest.raises(IngestError, match="not imported yet"):
        services.imports.append_file(write(tmp_path / "other.json", 1, conv_id="someone-else"))
    record = services.raw_store().records(CONV, episode_id=services.raw_store().episodes(CONV, 2)[0].id)[0]
    services.curation.edit_record(record.id, {"value": "fixed"}, who="tester",
                                  expected_version=record.version)
    with pytest.raises(IngestError, match="session 2: has 1 annotator edit"):
        services.imports.append_file(write(tmp_path / "more.json", 2, extra=[("Ben", "One more thing.")]))
    assert memory(services)[:3] == kept[:3]
    nothing = services.imports.append_file(tmp_path / "two.json")
    assert not nothing[0].changed


def test_remember_appends_a_session_or_the_end_of_the_last(services: Any, tmp_path: Path) -> None:
    services.imports.import_file(write(tmp_path / "one.json", 1))
    build(services)
    grown = services.imports.remember(CONV, [("Anna", "My sister Lea moved to Lisbon in April."),
                                             ("Ben", "Lisbon! Does she like it?")])
    assert grown.sessions_added == [2] and grown.turn_ids == ["D2:1", "D2:2"]
    more = services.imports.remember(CONV, [("Anna", "She loves the tram rides.")], session=2)
    assert more.session_extended == 2 and more.turn_ids == ["D2:3"]
    assert build(services)["sessions_built"] == 1
    assert [t.id for t in services.raw_store().turns(CONV)][-3:] == ["D2:1", "D2:2", "D2:3"]
    with pytest.raises(IngestError, match="1 is not the last session"):
        services.imports.remember(CONV, [("Anna", "late")], session=1)
    with pytest.raises(IngestError, match="the text is empty"):
        services.imports.remember(CONV, [("Anna", "  ")])
    with pytest.raises(StoreError, match="unknown conversation"):
        services.imports.remember("nope", [("Anna", "hi")])


def test_cli_import_append(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "import", str(write(tmp_path / "one.json", 1))]) == 0
    assert main(["--home", home, "import", str(write(tmp_path / "two.json", 2))]) == 1
    assert "already imported; use --replace" in capsys.readouterr().err
    assert main(["--home", home, "import", "--append", str(tmp_path / "two.json")]) == 0
    out = capsys.readouterr().out
    assert f"appended to {CONV}: 5 turns; new session(s) 2" in out
    edited = write(tmp_path / "e.json", 2, edit=(2, 1, "x"))
    assert main(["--home", home, "import", "--append", str(edited)]) == 1
    assert "session 2: differs from the stored session (turn 'D2:1')" in capsys.readouterr().err


def test_agent_traces_are_tagged_and_searches_are_not_re_asked(services: Any, tmp_path: Path) -> None:
    services.imports.import_file(write(tmp_path / "one.json", 1))
    build(services)
    person = services.queries.ask(CONV, "What is the name of Anna's puppy?")
    agent = services.queries.ask(CONV, "Which cloud provider did Ben's company pick?", client="mcp:bot")
    search, records = services.queries.search(CONV, "beagle puppy", limit=2, client="mcp:bot")
    assert 1 <= len(records) <= 2 and search.kind == "search"
    assert [r.id for r in services.queries.traces(CONV)] == [person.id]  # people's questions
    assert {(r.id, r.kind) for r in services.queries.traces(CONV, agents=True)} == {
        (agent.id, "ask"), (search.id, "search")}
    assert services.queries.trace(search.id).client == "mcp:bot"
    report = services.curation.impact(CONV)  # re-asks questions, never an agent's search
    assert sorted(r.question for r in report.rows) == sorted([person.question, agent.question])
