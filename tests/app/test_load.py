"""Load & build: preview, import errors as one line, upload, and the live build view."""

from __future__ import annotations

import re

from memory_core.models import Source
from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, all_text, button, html_bodies, shown, widget


def _pick_sample(at, name: str):
    box = widget(at.selectbox, "Sample file")
    assert name in box.options, box.options
    return box.set_value(name).run()


def test_sample_file_is_previewed_with_its_detected_format(open_app) -> None:
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    _pick_sample(at, "sample_conversation.json")
    assert "Detected format: **locomo**" in all_text(at)
    table = next(h.proto.body for h in at.get("html") if 'class="mn-table"' in h.proto.body)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)  # conversation, already imported, speakers, …
    assert cells[0] == SAMPLE_ID and cells[1] == "yes"
    assert int(cells[4]) > 200


def test_importing_an_existing_conversation_is_refused_with_one_line(open_app) -> None:
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    _pick_sample(at, "sample_conversation.json")
    button(at, "Import").click().run()
    assert len(at.error) == 1
    message = shown(at.error[0].value)
    assert "already imported" in message and "\n" not in message
    # the page names its own checkbox, not the command line's flag
    box = next(c for c in at.checkbox if c.label.startswith("Replace conversations"))
    assert f"tick “{box.label}”" in message and "--replace" not in message


def test_a_bad_upload_gets_the_importer_message_naming_the_file(open_app) -> None:
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    widget(at.radio, "Source").set_value("Upload a file").run()
    at.file_uploader[0].upload("broken.json", b'{"conversation_id": "x", "turns": [', "application/json")
    at.run()
    assert len(at.error) == 1
    assert "broken" in at.error[0].value
    assert button(at, "Import").disabled


def test_an_upload_is_imported_and_becomes_the_current_conversation(open_app, app_services) -> None:
    import json

    doc = {"conversation_id": "upload-demo", "turns": [
        {"session": 1, "session_time": "2024-01-02T10:00:00", "speaker": "Ann", "text": "I adopted a dog."},
        {"session": 1, "session_time": "2024-01-02T10:00:00", "speaker": "Bo", "text": "What is its name?"},
        {"session": 1, "session_time": "2024-01-02T10:00:00", "speaker": "Ann", "text": "Rex, a beagle."}]}
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    widget(at.radio, "Source").set_value("Upload a file").run()
    at.file_uploader[0].upload("upload-demo.json", json.dumps(doc).encode(), "application/json")
    at.run()
    widget(at.checkbox, "Replace conversations that are already imported").check().run()
    button(at, "Import").click().run()
    assert any("Imported upload-demo" in shown(s.value) for s in at.success)
    assert at.query_params["conv"] == "upload-demo"
    assert app_services.imports.stats("upload-demo")["turns"] == 3


def test_build_and_watch_draws_the_memory_forming(open_app, app_services) -> None:
    at = open_app("pages/load.py", conv=HOSTILE_ID)
    widget(at.checkbox, "Rebuild sessions that are already built").check().run()
    button(at, "Build and watch (offline backend)").click().run(timeout=600)
    text = all_text(at)
    assert any("Built 2 session" in shown(s.value) for s in at.success), text
    episodes = app_services.imports.stats(HOSTILE_ID)["episodes"]
    assert f"Episodes {episodes}" in text
    body = html_bodies(at)
    # the transcript drawn during the build: both sessions, episode bands, record chips
    assert "Session 1" in body and "Session 2" in body
    assert body.count('class="mn-episode"') >= episodes
    assert 'class="mn-chip"' in body
    assert at.get("status") or "Build finished" in text


def test_delete_needs_the_typed_id_then_forgets_the_conversation(open_app, app_services) -> None:
    doc = b'{"turns": [{"speaker": "Ana", "text": "my locker code is quartz-7731"}]}'
    conv = app_services.imports.import_file(Source.upload("forget-me.json", doc)).ids[0]
    at = open_app("pages/load.py", conv=conv)
    go = button(at, "Delete for good")
    assert go.disabled
    widget(at.text_input, "Type the conversation id to confirm").set_value(conv[:-1]).run()
    assert button(at, "Delete for good").disabled
    widget(at.text_input, "Type the conversation id to confirm").set_value(conv).run()
    button(at, "Delete for good").click().run()
    assert not app_services.raw_store().has_conversation(conv)
    assert f"Deleted {conv} (" in all_text(at)
    forgotten = [e for e in app_services.raw_store().edits(conv) if e.action == "forget"]
    assert len(forgotten) == 1 and "quartz" not in forgotten[0].model_dump_json()
