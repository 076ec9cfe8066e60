"""Ask: agent calls (MCP clients' asks and searches, saved as traces under the client's name)
are listed beside people's questions, and an opened one shows what the agent was handed."""

from __future__ import annotations

from components.agent_calls import buffer_text
from tests.app.conftest import SAMPLE_ID, all_text, no_errors, shown


def test_agent_calls_listed_and_what_they_were_handed(open_app, app_services) -> None:
    person = app_services.queries.ask(SAMPLE_ID, "What did Jonas bake for the party?")
    asked = app_services.queries.ask(SAMPLE_ID, "Which city does Jonas live in?", client="mcp:desk-agent")
    searched, records = app_services.queries.search(SAMPLE_ID, "pottery class", limit=4,
                                                    client="mcp:desk-agent")
    assert records and searched.kind == "search" and searched.client == "mcp:desk-agent"
    assert [bt.turn_id for bt in searched.buffer] == sorted(
        {t for r in records for t in r.evidence_turn_ids},
        key=[t.id for t in app_services.raw_store().turns(SAMPLE_ID)].index)  # handed turns, dialogue order

    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    no_errors(at)
    expanders = {e.label.split(" (")[0]: e for e in at.expander}
    assert "Agent calls" in expanders
    links = [shown(p.proto.label) for p in at.get("page_link")]
    agent_lines = [x for x in links if "mcp:desk-agent" in x]
    assert any("searched: pottery class" in x for x in agent_lines), agent_lines
    assert any("asked: Which city does Jonas live in?" in x for x in agent_lines), agent_lines
    assert not any(person.question in x for x in agent_lines)  # a person's question is not an agent call

    opened = open_app("pages/ask.py", conv=SAMPLE_ID, trace=searched.id, timeout=120)
    no_errors(opened)
    text = all_text(opened)
    assert "Agent call: mcp:desk-agent searched over MCP" in text.replace("**", "")
    handed = [e.label for e in opened.expander if e.label.startswith("What the agent was handed")]
    expected = f"What the agent was handed: {len(searched.buffer)} turns, {searched.buffer_tokens} tokens"
    assert handed == [expected]
    assert [c.value for c in opened.code] == [buffer_text(searched)]
    assert all(r.id in text for r in records)  # each handed record, linked to the Records page
    assert "Evidence buffer" in [shown(s.value) for s in opened.subheader]  # the usual drill-down below
    assert "mcp:desk-agent" not in all_text(open_app("pages/ask.py", conv=SAMPLE_ID, trace=person.id))
    assert asked.client == "mcp:desk-agent"
