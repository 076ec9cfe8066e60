"""ImportService: one transaction per file, replace, uploads, preview, export."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator

import pytest

from memory_core.config import ImportLimits, Settings
from memory_core.errors import IngestError, StoreError
from memory_core.models import Entity, Episode, EventFrame, Record, Source
from memory_core.progress import Step
from memory_core.services import Services
from memory_core.services.importing import ImportResult
from memory_core.store.vectors import CHROMA_DIR, VectorIndex

from .samples import locomo_sample

EXPORT_KEYS = {"conversation", "sessions", "turns", "episodes", "records", "entities", "entity_merges",
               "events", "event_links", "edges", "qa"}


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    s = Services(settings)  # no embedder needed to import
    yield s
    s.close()


def _memory(conv_id: str) -> tuple[list[Episode], list[Record], list[EventFrame]]:
    episode = Episode(id=f"{conv_id}:S1:E1", conv_id=conv_id, session=1, turn_ids=("D1:1", "D1:2"),
                      theme=("cat",), boundary_reason="topic shift", boundary_score=0.7)
    record = Record(id=f"{conv_id}:r1", conv_id=conv_id, episode_id=episode.id, entity="Ana",
                    entity_type="person", property="pet", value="cat named Miso",
                    evidence_turn_ids=("D1:1",), confidence=0.9, valid_time="2023-05-06")
    event = EventFrame(id=f"{conv_id}:v1", conv_id=conv_id, episode_id=episode.id, action="adopt",
                       participants=("Ana",), source_turn_ids=("D1:1",))
    return [episode], [record], [event]


def test_import_file_returns_ids_format_and_warnings(svc, write):
    result = svc.imports.import_file(write("two.json", [locomo_sample("a"), locomo_sample("b")]))
    assert isinstance(result, ImportResult)
    assert result.ids == ["a", "b"] and result.format == "locomo" and result.replaced == []
    assert len(result.warnings) == 2  # one unmatched evidence id per conversation
    assert svc.imports.stats() | {} == svc.raw_store().stats()
    assert svc.imports.stats()["conversations"] == 2 and svc.imports.stats("a")["turns"] == 5
    assert svc.imports.conversation("a").qa[0].question == "What is the cat's name?"
    assert [row.id for row in svc.imports.list_conversations()] == ["a", "b"]


def test_a_file_is_one_transaction(svc, write):
    svc.imports.import_file(write("b.json", [locomo_sample("b")]))
    before = svc.imports.stats()
    with pytest.raises(IngestError) as err:
        svc.imports.import_file(write("ab.json", [locomo_sample("a"), locomo_sample("b")]))
    assert err.value.where == "conversation 'b'"
    assert svc.imports.stats() == before and not svc.raw_store().has_conversation("a")


def test_replace_swaps_conversation_and_memory_atomically(svc, write):
    svc.imports.import_file(write("c.json", [locomo_sample("c")]))
    svc.raw_store().save_session_memory("c", 1, *_memory("c"), backend="offline")
    assert svc.imports.stats("c")["records"] == 1
    changed = locomo_sample("c")
    changed["conversation"]["session_2"].append({"speaker": "Ben", "dia_id": "D2:3", "text": "New turn."})
    result = svc.imports.import_file(write("c2.json", [changed]), replace=True)
    assert result.replaced == ["c"]
    stats = svc.imports.stats("c")
    assert (stats["turns"], stats["episodes"], stats["records"], stats["events"]) == (6, 0, 0, 0)
    assert svc.raw_store().built_sessions("c") == {}
    assert not (svc.settings.home / CHROMA_DIR).exists()  # no index existed: Chroma is not opened


def test_replace_drops_the_old_vectors(settings, write, embedder):
    index = VectorIndex.open_settings(settings)
    svc = Services(settings, index=index, embedder=embedder)
    try:
        svc.imports.import_file(write("v.json", [locomo_sample("v"), locomo_sample("w")]))
        texts = {"v:D1:1": "I adopted a cat", "w:D1:1": "I adopted a cat too"}
        vectors = embedder.embed(list(texts.values()))
        index.upsert("turns", list(texts), vectors,
                     [{"conv_id": key.split(":")[0]} for key in texts])
        assert index.count("turns", {"conv_id": "v"}) == 1
        svc.imports.import_file(write("v2.json", [locomo_sample("v")]), replace=True)
        assert index.count("turns", {"conv_id": "v"}) == 0
        assert index.count("turns", {"conv_id": "w"}) == 1
    finally:
        svc.close()


def test_an_upload_is_imported_under_its_name(svc):
    data = json.dumps({"turns": [{"speaker": "Ana", "text": "hi"}]}).encode()
    result = svc.imports.import_file(Source.upload("My Upload.json", data))
    assert result.ids == ["My-Upload"] and result.format == "json"
    with pytest.raises(IngestError) as err:
        svc.imports.import_file(Source.upload("broken.json", b'{"turns": ['))
    assert str(err.value).startswith("broken.json: line 1, column 12: truncated JSON")
    big = Services(Settings(home=svc.settings.home, limits=ImportLimits(max_file_mb=0.001)),
                   store=svc.raw_store())
    with pytest.raises(IngestError, match=r"^big\.json: file is 0\.0 MB, over the import limit"):
        big.imports.import_file(Source.upload("big.json", b" " * 2000))


def test_an_upload_is_read_from_memory_in_every_encoding(svc, tmp_path, monkeypatch):
    """No temp file: the upload is parsed from its bytes (UTF-16 and cp1252 included)."""
    import tempfile

    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    doc = {"id": "enc", "turns": [{"speaker": "Zoë", "text": "café ☕"}]}
    text = json.dumps(doc, ensure_ascii=False)
    utf16 = codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    result = svc.imports.import_file(Source.upload("u16.json", utf16))
    assert result.ids == ["u16"] and any("UTF-16" in w for w in result.warnings)
    legacy = json.dumps({"id": "enc2", "turns": [{"speaker": "Zoë", "text": "café"}]}, ensure_ascii=False)
    result = svc.imports.import_file(Source.upload("cp.json", legacy.encode("cp1252")))
    assert result.ids == ["cp"] and any("cp1252" in w for w in result.warnings)
    assert [t.text for t in svc.imports.conversation("u16").turns] == ["café ☕"]
    assert list(spool.iterdir()) == []


def test_preview_reads_without_writing(svc, write):
    svc.imports.import_file(write("p.json", [locomo_sample("p")]))
    before = svc.imports.stats()
    info = svc.imports.preview(write("pq.json", [locomo_sample("p"), locomo_sample("q")]), max_turns=2)
    assert svc.imports.stats() == before
    assert info.format == "locomo"
    p, q = info.conversations
    assert (p.id, p.exists, q.exists) == ("p", True, False)
    assert (q.sessions, q.turns, q.questions, q.speakers) == (2, 5, 3, ("Ana", "Ben"))
    assert [t.id for t in q.first_turns] == ["D1:1", "D1:2"]
    assert q.first_turns[0].session_time == "2023-05-08T13:56:00"
    assert svc.imports.detect_format(write("t.txt", "Ana: hi\nBen: yo\n")) == "text"
    with pytest.raises(IngestError):
        svc.imports.preview(write("bad.json", "[1, 2"))


def test_export_json_has_the_documented_keys(svc, write):
    svc.imports.import_file(write("e.json", [locomo_sample("e")]))
    episodes, records, events = _memory("e")
    svc.raw_store().save_session_memory("e", 1, episodes, records, events, backend="offline")
    svc.raw_store().save_graph("e", [Entity(id="e:ana", conv_id="e", name="Ana", type="person")], [], [], [])
    out = svc.imports.export_json("e")
    json.dumps(out)  # plain JSON values only
    assert set(out) == EXPORT_KEYS
    assert out["conversation"] == {"id": "e", "speakers": ["Ana", "Ben"],
                                   "source": {"format": "locomo", "name": "e.json"}}
    assert [s["index"] for s in out["sessions"]] == [1, 2] and out["sessions"][0]["turns"] == 3
    turn = out["turns"][2]
    assert set(turn) == {"id", "session", "speaker", "text", "image_caption", "image_url", "session_time"}
    assert (turn["id"], turn["image_caption"]) == ("D1:3", "a photo of a grey cat on a sofa")
    (episode,) = out["episodes"]
    assert set(episode) >= {"id", "session", "turn_ids", "theme", "theme_type", "boundary_reason",
                            "boundary_score"}
    assert episode["turn_ids"] == ["D1:1", "D1:2"]
    (record,) = out["records"]
    assert set(record) == set(Record.model_fields)
    assert (record["episode_id"], record["evidence_turn_ids"]) == ("e:S1:E1", ["D1:1"])
    assert out["entities"][0]["name"] == "Ana" and out["events"][0]["action"] == "adopt"
    assert [q["qid"] for q in out["qa"]] == [0, 1, 2]
    with pytest.raises(StoreError, match="unknown conversation 'nope'"):
        svc.imports.export_json("nope")


def _lme_items(n: int, bad_at: int | None = None) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for i in range(n):
        sessions = [[{"role": "user", "content": f"My locker number is {i}.", "has_answer": True},
                     {"role": "assistant", "content": ""}]]
        if i == bad_at:
            sessions = [[{"role": "user"}, {"content": "no role"}]]
        items.append({"question_id": f"lme-{i}", "question_type": "single-session-user",
                      "question": "What is my locker number?", "answer": i,
                      "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s"],
                      "haystack_dates": ["2023/05/20 (Sat) 02:21"], "haystack_sessions": sessions,
                      "answer_session_ids": ["s"]})
    return items


def test_a_streamed_file_is_saved_in_batches_of_whole_conversations(tmp_path, write):
    path = write("lme.json", _lme_items(10))
    settings = Settings(home=tmp_path / "home", limits=ImportLimits(max_file_mb=0.001))
    svc = Services(settings)
    try:
        steps: list[Step] = []
        streamed = svc.imports.import_file(path, on_progress=steps.append)
        stages = [(s.stage, s.done, s.total) for s in steps]
        assert streamed.format == "longmemeval" and streamed.ids == [f"lme-{i}" for i in range(10)]
        assert ("saved", 10, 10) in stages and ("checked", 10, 10) in stages
        conv = svc.imports.conversation("lme-7")
        assert [(t.id, t.text) for t in conv.turns] == [("D1:1", "My locker number is 7."), ("D1:2", "")]
        assert conv.qa[0].answer == "7" and conv.qa[0].evidence == ("D1:1",)
        assert any("'D1:2' is empty" in w for w in streamed.warnings)
        with pytest.raises(IngestError, match="already imported"):
            svc.imports.import_file(path)
        assert svc.imports.import_file(path, replace=True).replaced == streamed.ids
        assert svc.imports.stats()["conversations"] == 10
    finally:
        svc.close()


def test_a_bad_item_in_a_streamed_file_writes_nothing(tmp_path, write):
    path = write("lme.json", _lme_items(60, bad_at=55))
    settings = Settings(home=tmp_path / "home", limits=ImportLimits(max_file_mb=0.001))
    svc = Services(settings)
    try:
        with pytest.raises(IngestError) as err:
            svc.imports.import_file(path)
        assert err.value.where == "$[55].haystack_sessions[0][1].role"
        assert svc.imports.stats()["conversations"] == 0
    finally:
        svc.close()
