"""Issue 12.5 — forgetting a conversation leaves none of its text in any file of the home.

Import a conversation carrying a distinctive word, build it, ask about it, edit a record to
quote it, cache an LLM answer quoting it; then ``delete --conv`` and scan every byte of the
DuckDB file, the Chroma directory (or, on PostgreSQL, the cluster's table files) for it.
Another conversation stays exactly as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_core.cli import main
from memory_core.errors import AccessError, StoreError
from memory_core.llm.accounting import llm_scope
from memory_core.llm.cache import LLMCache
from memory_core.services import Services
from memory_core.services.access import Principal
from memory_core.store.vectors import VectorIndex

SECRET = "Zorbulixa"
FORGET, KEEP = "forget-me", "keep-me"
ENDPOINT = "http://127.0.0.1:1/v1"  # never called: the cache is written directly


def sample(sample_id: str, pet: str) -> dict[str, Any]:
    conversation = {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": f"I adopted a cat named {pet} last Saturday."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": f"Lovely! Is {pet} a tabby?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": f"Yes, {pet} is a grey tabby and loves the sofa."},
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": f"How is {pet} doing?"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": f"{pet} learned to open doors; I paint now."},
        ],
    }
    qa = [{"question": "What is the cat's name?", "answer": pet, "evidence": ["D1:1"], "category": 4}]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def files_containing(root: Path, needles: list[bytes]) -> list[str]:
    found = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(n in data for n in needles):
                found.append(str(path.relative_to(root)))
    return sorted(found)


def context(path: Path, needles: list[bytes]) -> str:
    """Where a needle sits in a file (for the failure message)."""
    data = path.read_bytes()
    i = max(data.find(n) for n in needles)
    return f"{path.name} ({len(data)} bytes) at {i}: {data[max(0, i - 120):i + 60]!r}"


def snapshot(services: Services, conv: str) -> tuple[Any, ...]:
    store = services.raw_store()
    return (store.load_conversation(conv), store.episodes(conv), store.records(conv, include_inactive=True),
            store.entities(conv), store.edges(conv), store.events(conv), len(store.traces(conv)),
            [e.id for e in store.edits(conv)],
            *(services.raw_index().count(name, {"conv_id": conv})
              for name in ("turns", "records", "entities")))


@pytest.fixture
def home(settings, tmp_path: Path, embedder):
    data = tmp_path / "two.json"
    data.write_text(json.dumps([sample(FORGET, SECRET), sample(KEEP, "Miso")]))
    services = Services(settings, embedder=embedder)
    services.imports.import_file(data)
    for conv in (FORGET, KEEP):
        for _ in services.builds.build(conv):
            pass
    services.queries.ask(FORGET, f"What colour is {SECRET}?")
    services.queries.ask(KEEP, "What colour is Miso?")
    record = services.raw_store().records(FORGET)[0]
    services.curation.edit_record(record.id, {"value": f"{SECRET} the brave"}, who="ana",
                                  why=f"{SECRET} is brave", expected_version=record.version)
    with llm_scope(FORGET, "build:test"):  # a cached LLM answer quoting the conversation
        LLMCache(services.raw_store()).put("k-forget", ENDPOINT, "m", f'{{"value": "{SECRET}"}}', 5, 3)
    with llm_scope(KEEP, "build:test"):
        LLMCache(services.raw_store()).put("k-keep", ENDPOINT, "m", '{"value": "Miso"}', 5, 3)
    yield services
    services.close()


def test_forgetting_a_conversation_leaves_its_text_nowhere(home, settings, engine, request,
                                                            monkeypatch) -> None:
    services: Services = home
    if settings.chroma_url:  # the CLI finds the Chroma server as a user's shell would
        monkeypatch.setenv("MNEMOSCOPE_CHROMA_URL", settings.chroma_url)
    needles = [SECRET.encode(), SECRET.lower().encode()]
    flush = lambda: None  # noqa: E731
    if engine == "duckdb":
        roots = [settings.home]
    else:  # the cluster's table files (not its WAL) and the Chroma server's files
        cluster = request.getfixturevalue("pg_cluster")
        roots = [cluster.data / "base", request.getfixturevalue("chroma_server").root]
        flush = cluster.checkpoint
    flush()
    before = [f for root in roots for f in files_containing(root, needles)]
    assert before, "the scan must see the word before the delete (else it proves nothing)"
    kept = snapshot(services, KEEP)
    assert services.raw_store().cached_response("k-forget") is not None

    database = ["--database", settings.database_url] if settings.database_url else []
    command = ["--home", str(settings.home), *database, "delete", "--conv", FORGET, "--yes", "--who", "dpo"]
    assert main(command) == 0
    # a new services object sees the result as another process would
    services.raw_store().close()
    again = Services(settings, embedder=services.embedder)
    try:
        assert not again.raw_store().has_conversation(FORGET)
        if engine == "postgres":
            # a Chroma server's SQLite keeps freed pages: the server host vacuums it (docs/scale.md)
            server = request.getfixturevalue("chroma_server")
            chroma = str(Path(sys.executable).with_name("chroma"))
            vacuum = [chroma, "vacuum", "--path", str(server.root / "data"), "--force"]
            done = subprocess.run(vacuum, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr
        flush()
        left = [(root, f) for root in roots for f in files_containing(root, needles)]
        assert left == [], [context(root / f, needles) for root, f in left]
        for name in ("turns", "records", "entities"):
            assert again.raw_index().count(name, {"conv_id": FORGET}) == 0
            index = again.raw_index()
            assert isinstance(index, VectorIndex)
            got = index._collections[name].get(include=["documents", "metadatas"])
            assert SECRET.lower() not in json.dumps(got, default=str).lower()
        assert again.raw_store().cached_response("k-forget") is None
        assert again.raw_store().cached_response("k-keep") is not None
        (audit,) = again.raw_store().edits(FORGET)
        assert (audit.action, audit.who, audit.before) == ("forget", "dpo", None)
        assert SECRET.lower() not in audit.model_dump_json().lower()
        assert audit.after is not None and audit.after["removed"]["turns"] == 5
        assert snapshot(again, KEEP) == kept
    finally:
        again.close()


def test_the_vector_index_is_never_given_the_conversations_words(home) -> None:
    """Chroma keeps vectors, ids and where-to metadata: no document, no name, no property — so
    a Chroma process cannot write a forgotten word into its files from memory it did not clear."""
    services: Services = home
    index = services.raw_index()
    assert isinstance(index, VectorIndex)
    store = services.raw_store()
    names = {e.name.lower() for conv in (FORGET, KEEP) for e in store.entities(conv)}
    assert SECRET.lower() in names  # the build made an entity of the word
    for name in ("turns", "records", "entities"):
        got = index._collections[name].get(include=["documents", "metadatas"])
        assert got["ids"], name
        assert all(d is None for d in got["documents"]), name
        said = json.dumps([got["ids"], got["metadatas"]], default=str).lower()
        assert SECRET.lower() not in said and "miso" not in said, name
    entity = next(e for e in store.entities(FORGET) if e.name.lower() == SECRET.lower())
    assert index.get_vectors("entities", [entity.id])[entity.id].shape == (384,)


def test_compact_index_strips_an_index_written_when_chroma_was_given_words(home, settings, engine,
                                                                           monkeypatch) -> None:
    """``compact-index`` rewrites an older index (a turn's document, a name in an entity's id and
    metadata) with vectors, ids and where-to metadata only; the vectors stay findable under
    our ids, nothing else changes, and only an administrator may run it."""
    services: Services = home
    if settings.chroma_url:
        monkeypatch.setenv("MNEMOSCOPE_CHROMA_URL", settings.chroma_url)
    index = services.raw_index()
    assert isinstance(index, VectorIndex)
    turn_id = index._collections["turns"].get(where={"conv_id": KEEP}, limit=1)["ids"][0]
    vector = index.get_vectors("turns", [turn_id])[turn_id]
    word = "Quandolir"  # as an index written before looks: words beside the vectors
    index._collections["turns"].upsert(ids=[turn_id], embeddings=[vector.tolist()],
                                       documents=[f"{word} said"],
                                       metadatas=[{"conv_id": KEEP, "speaker": word}])
    index._collections["entities"].upsert(ids=[f"{KEEP}:ent:{word.lower()}"], embeddings=[vector.tolist()],
                                          documents=[word], metadatas=[{"conv_id": KEEP, "name": word}])
    counts = {name: index.count(name) for name in ("turns", "records", "entities")}
    viewer = services.for_principal(Principal("v", "viewer"), "cli")
    with pytest.raises(AccessError):
        viewer.imports.compact_index()
    database = ["--database", settings.database_url] if settings.database_url else []
    assert main(["--home", str(settings.home), *database, "compact-index"]) == 0
    again = Services(settings, embedder=services.embedder)
    try:
        moved = again.raw_index()
        assert isinstance(moved, VectorIndex)
        for name in ("turns", "records", "entities"):
            got = moved._collections[name].get(include=["documents", "metadatas"])
            assert all(d is None for d in got["documents"]), name
            assert word.lower() not in json.dumps([got["ids"], got["metadatas"]]).lower(), name
            assert moved.count(name) == counts[name], name
        assert np.allclose(moved.get_vectors("turns", [turn_id])[turn_id], vector)
        if engine == "duckdb":  # embedded: the vacuumed files hold the word no more
            assert files_containing(settings.home / "chroma", [word.encode(), word.lower().encode()]) == []
    finally:
        again.close()


def test_forgetting_one_session(home, settings) -> None:
    services: Services = home
    kept = snapshot(services, KEEP)
    edited = services.raw_store().edits(FORGET)[0]
    counts = services.imports.forget(FORGET, session=1, who="dpo", why="asked by Ana")
    assert counts["turns"] == 3 and counts["sessions"] == 1
    assert [t.id for t in services.raw_store().turns(FORGET)] == ["D2:1", "D2:2"]
    assert services.raw_index().count("turns", {"conv_id": FORGET}) == 2
    assert all(e.session == 2 for e in services.raw_store().episodes(FORGET))
    assert services.raw_store().traces(FORGET) == [] and services.raw_store().entities(FORGET) == []
    emptied = services.raw_store().edit(edited.id)
    assert (emptied.before, emptied.after) == (None, None)
    for _ in services.builds.build(FORGET):  # the graph is recomputed from what remains
        pass
    assert services.raw_store().entities(FORGET)
    assert snapshot(services, KEEP) == kept
    with pytest.raises(StoreError, match="has no session 7"):
        services.imports.forget(FORGET, session=7, who="dpo")


def test_delete_needs_a_confirmation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path), "delete", "--conv", "x"]) == 1
    assert "add --yes to confirm (nothing was deleted)" in capsys.readouterr().err
