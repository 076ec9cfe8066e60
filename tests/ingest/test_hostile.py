"""Hostile files (issue 7, item 1), generated here: each is refused with one line naming the
file, where and what — leaving the store byte-for-byte as it was — or accepted with a named
warning. No traceback, no partial write."""

from __future__ import annotations

import hashlib
import json
import os
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.config import ImportLimits, Settings
from memory_core.errors import IngestError
from memory_core.ingest import load_file
from memory_core.services import Services
from memory_core.store import DB_FILE

from .samples import locomo_sample

MB = 2**20


def _sample_with(mutate: Callable[[dict[str, Any]], Any]) -> list[dict[str, Any]]:
    sample = locomo_sample()
    mutate(sample)
    return [sample]


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


GOOD_ROWS = [{"speaker": "A", "text": f"turn {i}"} for i in range(4)]

# name -> (file name, content or None for "do not create", expected where, expected what)
REFUSED: dict[str, tuple[str, Any, str, str]] = {
    "missing path": ("nope.json", None, "", "no such file"),
    "empty file": ("empty.json", b"", "", "file is empty"),
    "only whitespace": ("blank.txt", b" \n\t\n", "", "file is empty (only whitespace)"),
    "binary (utf-16 without BOM)": ("u16.txt", "Ana: hi\n".encode("utf-16-le"), "line 1",
                                    "binary data (NUL byte): not UTF-8 text and not decodable"),
    "truncated JSON": ("cut.json", json.dumps([locomo_sample()], indent=1)[:700], "line ",
                       "truncated JSON: unexpected end of data"),
    "invalid JSON": ("bad.json", '[\n  {"speaker": "A", "text": "hi",}\n]', "line 2, column 33",
                     "invalid JSON: Expecting property name enclosed in double quotes"),
    "huge number": ("num.json", '[{"speaker": "A", "text": "hi", "session": ' + "9" * 5000 + "}]", "",
                    "invalid JSON: Exceeds the limit"),
    "wrong shape (speaker a number)": (
        "shape.json", _sample_with(lambda s: s["conversation"]["session_2"][1].update(speaker=5)),
        "$[0].conversation.session_2[1].speaker", "expected a string, got number"),
    "wrong shape (top level)": ("top.json", {"title": "not a conversation"}, "$", "unrecognised JSON shape"),
    "100,000-deep list nesting": ("deep.json", "[" * 100_000 + "]" * 100_000, "line 1, column 65",
                                  "JSON nested deeper than 64 levels"),
    "100,000-deep object nesting": ("deep-obj.json", '{"a":' * 100_000 + "1" + "}" * 100_000,
                                    "line 1, column ", "JSON nested deeper than 64 levels"),
    "deep nesting on a JSONL line": ("deep.jsonl", _jsonl(GOOD_ROWS) + "{\"x\": " + "[" * 100_000 + "\n",
                                     "line 5, column ", "JSON nested deeper than 64 levels"),
    "duplicate turn ids": ("dup.json", _sample_with(lambda s: s["conversation"]["session_2"][0].update(
        dia_id="D1:1")), "$[0].conversation.session_2[0]", "duplicate turn id 'D1:1'"),
    "turn with neither text nor caption": (
        "hollow.json", _sample_with(lambda s: s["conversation"]["session_1"][1].update(text="")),
        "$[0].conversation.session_1[1]", "neither text nor image caption"),
    "JSONL with one bad line": ("one-bad.jsonl",
                                _jsonl(GOOD_ROWS[:2]) + "{not json}\n" + _jsonl(GOOD_ROWS[2:]),
                                "line 3, column 2", "invalid JSON"),
    "CSV missing columns": ("cols.csv", "conversation_id,session,speaker\nc,1,Ana\n", "line 1 (header)",
                            "missing CSV column(s) text"),
    "CSV NUL byte": ("nul.csv", b"speaker,text\nAna,h\x00i\n", "line 2", "binary data (NUL byte)"),
    "lone surrogate": ("sur.json", '[{"speaker": "A", "text": "bad \\ud800 char"}]', "$[0].text",
                       "invalid unicode"),
    "unknown format": ("prose.txt", "It was a dark and stormy night.\nThe end.\n", "", "unknown format"),
    "conversation without turns": ("none.json", {"conversation_id": "x", "turns": []}, "$.turns",
                                   "conversation has no turns"),
}


def _hash(home: Path) -> str:
    return hashlib.sha256((home / DB_FILE).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home that already holds one conversation."""
    home = tmp_path_factory.mktemp("hostile") / "home"
    source = tmp_path_factory.mktemp("src") / "first.json"
    source.write_text(json.dumps([locomo_sample("kept")]), encoding="utf-8")
    services = Services(Settings(home=home))
    services.imports.import_file(source)
    services.close()
    return home


def _make(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / name
    if content is None:
        return path
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_one_line_and_the_store_unchanged(case, home, tmp_path):
    name, content, where, what = REFUSED[case]
    path = _make(tmp_path, name, content)
    before_hash, before_files = _hash(home), sorted(p.name for p in home.iterdir())
    services = Services(Settings(home=home))
    before = services.imports.stats()
    try:
        with pytest.raises(IngestError) as err:
            services.imports.import_file(path)
        assert services.imports.stats() == before
    finally:
        services.close()
    message = str(err.value)
    assert err.value.file == str(path) and message.startswith(f"{path}: ")
    assert err.value.where.startswith(where), message
    assert what in err.value.what, message
    assert "\n" not in message and "Traceback" not in message
    assert _hash(home) == before_hash  # byte for byte
    assert sorted(p.name for p in home.iterdir()) == before_files  # no WAL or temp file left


def test_a_directory_is_refused(home, tmp_path):
    services = Services(Settings(home=home))
    try:
        with pytest.raises(IngestError, match=r": is a directory, not a file$"):
            services.imports.import_file(tmp_path)
    finally:
        services.close()


def test_deep_nesting_is_refused_even_with_a_huge_depth_setting(tmp_path):
    path = _make(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(IngestError, match="nested deeper than 500 levels"):
        load_file(path, limits=ImportLimits(max_depth=1_000_000))


def test_reimport_needs_replace_and_leaves_the_store_unchanged(home, tmp_path):
    path = _make(tmp_path, "again.json", [locomo_sample("kept")])
    before_hash = _hash(home)
    services = Services(Settings(home=home))
    try:
        with pytest.raises(IngestError) as err:
            services.imports.import_file(path)
    finally:
        services.close()
    assert err.value.where == "conversation 'kept'" and "use --replace" in err.value.what
    assert _hash(home) == before_hash


# --------------------------------------------------------------------------- accepted with warnings
def test_legacy_encoding_is_decoded_with_a_warning(tmp_path):
    path = _make(tmp_path, "legacy.txt", "Zoë: Un café, s’il vous plaît — merci\nAna: ok\n".encode("cp1252"))
    loaded = load_file(path)
    assert loaded.conversations[0].turns[0].text == "Un café, s’il vous plaît — merci"
    assert loaded.conversations[0].turns[0].speaker == "Zoë"
    assert loaded.warnings[0] == f"{path}: line 1: not valid UTF-8 (byte 0xeb); decoded the file as cp1252"
    latin = _make(tmp_path, "latin.txt", b"Ana: caf\xe9 \x81\nBen: ok\n")  # 0x81 is not cp1252
    assert "decoded the file as latin-1" in load_file(latin).warnings[0]


def test_utf8_bom_and_utf16_bom(tmp_path):
    bom = _make(tmp_path, "bom.csv", "\ufeffspeaker,text\nAna,hi\n".encode())
    assert load_file(bom).conversations[0].turns[0].speaker == "Ana"
    u16 = _make(tmp_path, "u16.txt", "Ana: hi\nBen: hé\n".encode("utf-16"))
    loaded = load_file(u16)
    assert loaded.conversations[0].turns[1].text == "hé"
    assert "decoded as UTF-16" in loaded.warnings[0]


def test_a_200000_word_turn_is_truncated_with_a_warning(tmp_path):
    words = " ".join(f"word{i % 97}" for i in range(200_000))
    path = _make(tmp_path, "long.json", {"conversation_id": "long", "turns": [
        {"speaker": "Ana", "text": words}, {"speaker": "Ben", "text": "tl;dr"}]})
    services = Services(Settings(home=tmp_path / "home"))
    try:
        result = services.imports.import_file(path)
        stored = services.imports.conversation("long").turns[0].text
    finally:
        services.close()
    limit = ImportLimits().max_turn_chars
    assert stored == words[:limit]
    assert result.warnings == [f"{path}: $.turns[0]: turn 'D1:1' is {len(words):,} characters; "
                               f"truncated to {limit:,} (MNEMOSCOPE_MAX_TURN_CHARS)"]


def test_unparseable_session_dates_are_warnings(tmp_path):
    path = _make(tmp_path, "dates.jsonl", _jsonl([
        {"speaker": "A", "text": "hi", "session": 1, "session_time": "the day after the party"},
        {"speaker": "B", "text": "yo", "session": 2, "session_time": "2023-05-02"}]))
    loaded = load_file(path)
    conv = loaded.conversations[0]
    assert [s.time for s in conv.sessions] == [None, datetime(2023, 5, 2)]
    assert conv.sessions[0].time_text == "the day after the party"
    assert loaded.warnings == [f"{path}: line 1, $.session_time: cannot read the session date "
                               "'the day after the party'; session 1 has no time"]


# --------------------------------------------------------------------------- a 40 MB file
def _write_big_jsonl(path: Path, target_bytes: int) -> int:
    """~target_bytes of JSONL: 20,000-character turns over 20 sessions. Returns the turn count."""
    filler = ("The quick brown fox jumps over the lazy dog while the kettle boils. " * 300)[:19_990]
    count = 0
    with path.open("w", encoding="utf-8") as f:
        written = 0
        while written < target_bytes:
            line = json.dumps({"conversation_id": "big", "session": count // 100 + 1,
                               "speaker": "Ana" if count % 2 else "Ben", "text": f"{count:08d} {filler}"})
            f.write(line + "\n")
            written += len(line) + 1
            count += 1
    return count


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    return path, _write_big_jsonl(path, 40 * MB)


def test_a_40mb_file_over_the_limit_is_refused_cleanly(big_file, tmp_path):
    path, _ = big_file
    settings = Settings(home=tmp_path / "home", limits=ImportLimits(max_file_mb=32))
    services = Services(settings)
    try:
        with pytest.raises(IngestError) as err:
            services.imports.import_file(path)
        assert services.imports.stats()["turns"] == 0
    finally:
        services.close()
    assert str(err.value) == (f"{path}: file is 40.0 MB, over the import limit of 32 MB "
                              "(MNEMOSCOPE_MAX_FILE_MB)")


def test_a_40mb_file_within_the_default_limit_imports_in_bounded_memory(big_file, tmp_path):
    path, turns = big_file
    assert path.stat().st_size >= 40 * MB
    settings = Settings(home=tmp_path / "home")
    assert settings.limits.max_file_mb >= 40
    tracemalloc.start()
    try:
        loaded = load_file(path, limits=settings.limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # streamed: the turns themselves (~40 MB of text) plus small change, not several copies
    assert peak < 1.5 * path.stat().st_size, f"peak {peak / MB:.0f} MB"
    assert loaded.warnings == []
    services = Services(settings)
    try:
        result = services.imports.save_loaded(loaded, file=str(path))
        assert result.ids == ["big"]
        assert services.imports.stats("big")["turns"] == turns
        assert services.imports.stats("big")["sessions"] == (turns + 99) // 100
    finally:
        services.close()


def test_the_limit_applies_at_the_boundary(tmp_path):
    path = _make(tmp_path, "small.json", [{"speaker": "A", "text": "x" * 2000}])
    size_mb = path.stat().st_size / MB
    load_file(path, limits=replace(ImportLimits(), max_file_mb=size_mb))  # exactly at the limit
    with pytest.raises(IngestError, match="over the import limit"):
        load_file(path, limits=replace(ImportLimits(), max_file_mb=size_mb * 0.99))


def test_turn_count_limit(tmp_path):
    path = _make(tmp_path, "many.jsonl", _jsonl([{"speaker": "A", "text": str(i)} for i in range(6)]))
    with pytest.raises(IngestError) as err:
        load_file(path, limits=ImportLimits(max_turns=5))
    assert err.value.where == "line 6" and "more than 5 turns" in err.value.what


def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(IngestError, match=r"pipe\.json: not a regular file$"):
        load_file(fifo)
