"""The data commands through ``memory_core.cli.main``: import, list, stats, export, setup-sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_core.cli import commands_data, main
from memory_core.config import Settings
from memory_core.services import Services


def _turns(session_key: str, speaker_a: str = "Ana") -> list[dict[str, Any]]:
    n = session_key.split("_")[1]
    return [{"speaker": speaker_a, "dia_id": f"D{n}:1", "text": "Hello there."},
            {"speaker": "Ben", "dia_id": f"D{n}:2", "text": "Hi!", "blip_caption": "a wave"}]


def _sample(sample_id: str, date: str = "1:56 pm on 8 May, 2023") -> dict[str, Any]:
    return {"sample_id": sample_id, "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben", "session_1_date_time": date, "session_1": _turns("session_1"),
        "session_2_date_time": "2 June 2023", "session_2": _turns("session_2")},
        "qa": [{"question": "Who waved?", "answer": "Ben", "evidence": ["D1:2"], "category": 4}]}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path) -> str:
    return str(tmp_path / "home")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "pair.json"
    path.write_text(json.dumps([_sample("s1"), _sample("s2")]), encoding="utf-8")
    return path


def test_import_then_stats_json(capsys, home, source):
    code, out, err = run(capsys, "--home", home, "import", str(source))
    assert (code, err) == (0, "")
    assert out.splitlines() == ["imported s1 (locomo): 2 sessions, 4 turns, 1 questions",
                                "imported s2 (locomo): 2 sessions, 4 turns, 1 questions"]
    code, out, _ = run(capsys, "--home", home, "stats", "--json")
    stats = json.loads(out)
    services = Services.open(Settings(home=Path(home)))
    try:
        assert stats == services.imports.stats()
    finally:
        services.close()
    counts = [stats[k] for k in ("conversations", "sessions", "turns", "episodes", "records")]
    assert counts == [2, 4, 8, 0, 0]
    code, out, _ = run(capsys, "--home", home, "stats", "--conv", "s1", "--json")
    assert json.loads(out)["turns"] == 4
    code, out, _ = run(capsys, "--home", home, "list")
    assert [line.split("\t")[0] for line in out.splitlines()] == ["s1", "s2"]


def test_bench_import_counts_match_the_file(capsys, home, bench):
    data = bench("locomo_dev.json")
    raw = json.loads(data.read_text(encoding="utf-8"))
    sessions = [v for s in raw for k, v in s["conversation"].items()
                if k.startswith("session_") and isinstance(v, list) and v]
    code, _, err = run(capsys, "--home", home, "import", str(data))
    assert (code, err) == (0, "")
    stats = json.loads(run(capsys, "--home", home, "stats", "--json")[1])
    assert stats["conversations"] == len(raw)
    assert stats["sessions"] == len(sessions)
    assert stats["turns"] == sum(len(v) for v in sessions)
    assert stats["questions"] == sum(len(s["qa"]) for s in raw)


@pytest.mark.parametrize(
    ("content", "where_what"),
    [
        (None, "no such file"),
        ("[{\"speaker\": \"A\", \"text\": ", "line 1, column 27: truncated JSON"),
        ("[" * 100_000, "line 1, column 65: JSON nested deeper than 64 levels"),
        ("speaker,who\nA,hi\n", "line 1 (header): missing CSV column(s) text"),
    ],
)
def test_bad_input_is_one_stderr_line_and_writes_nothing(capsys, tmp_path, home, content, where_what):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "--home", home, "import", str(path))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {path}: ") and where_what in err
    assert not Path(home).exists()  # validated before the home was even opened


def test_refused_import_leaves_stats_unchanged(capsys, home, source, tmp_path):
    run(capsys, "--home", home, "import", str(source))
    before = run(capsys, "--home", home, "stats", "--json")[1]
    dup = tmp_path / "dup.json"
    sample = _sample("s3")
    sample["conversation"]["session_2"][1]["dia_id"] = "D1:1"
    dup.write_text(json.dumps([sample]), encoding="utf-8")
    code, _, err = run(capsys, "--home", home, "import", str(dup))
    assert code == 1
    assert err == (f"error: {dup}: $[0].conversation.session_2[1]: duplicate turn id 'D1:1' "
                   "(first at $[0].conversation.session_1[0]) (read as LoCoMo)\n")
    assert run(capsys, "--home", home, "stats", "--json")[1] == before


def test_reimport_needs_replace(capsys, home, source):
    run(capsys, "--home", home, "import", str(source))
    code, _, err = run(capsys, "--home", home, "import", str(source))
    assert code == 1
    assert err == f"error: {source}: conversation 's1': already imported; use --replace to replace it\n"
    code, out, _ = run(capsys, "--home", home, "import", str(source), "--replace")
    assert code == 0 and out.startswith("replaced s1 (locomo)")


def test_warnings_are_printed_and_the_import_succeeds(capsys, home, tmp_path):
    path = tmp_path / "dates.json"
    path.write_text(json.dumps([_sample("w", date="the morning after")]), encoding="utf-8")
    code, out, err = run(capsys, "--home", home, "import", str(path))
    assert code == 0 and out.startswith("imported w")
    assert err == (f"warning: {path}: $[0].conversation.session_1_date_time: cannot read the session date "
                   "'the morning after'; session 1 has no time\n")


def test_format_override(capsys, home, tmp_path):
    path = tmp_path / "chat.log"
    path.write_text("Ana: hi\nBen: hello\n", encoding="utf-8")
    code, out, _ = run(capsys, "--home", home, "import", str(path), "--format", "text")
    assert code == 0 and out.startswith("imported chat (text): 1 sessions, 2 turns")
    code, _, err = run(capsys, "--home", home, "import", str(path), "--format", "yaml")
    assert code == 1 and "format: unknown format 'yaml'" in err


def test_export_json(capsys, home, source, tmp_path):
    run(capsys, "--home", home, "import", str(source))
    out_file = tmp_path / "out" / "s1.json"
    code, _, err = run(capsys, "--home", home, "export", "--conv", "s1", "--format", "json",
                       "--out", str(out_file))
    assert code == 0 and err == f"wrote {out_file}\n"
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert {"conversation", "sessions", "turns", "episodes", "records", "entities", "events"} <= set(data)
    assert [t["id"] for t in data["turns"]] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert data["turns"][1]["image_caption"] == "a wave"
    code, out, _ = run(capsys, "--home", home, "export", "--conv", "s2")
    assert code == 0 and json.loads(out)["conversation"]["id"] == "s2"
    code, _, err = run(capsys, "--home", home, "export", "--conv", "nope")
    assert code == 1 and err.startswith("error: unknown conversation 'nope'") and err.count("\n") == 1
    code, _, err = run(capsys, "--home", home, "export", "--conv", "s1", "--out", str(tmp_path))
    assert code == 1 and "is a directory" in err


@pytest.mark.slow  # setup-sample builds what it imported
def test_setup_sample_imports_once(capsys, home):
    code, out, err = run(capsys, "--home", home, "setup-sample")
    assert code == 0 and err == ""
    assert out.startswith("imported sample: ")
    sample_ids = out.splitlines()[0].split(": ", 1)[1].split(", ")
    before = run(capsys, "--home", home, "stats", "--json")[1]
    assert json.loads(before)["conversations"] == len(sample_ids) >= 1
    code, out, _ = run(capsys, "--home", home, "setup-sample")
    assert code == 0 and out == f"sample already imported: {', '.join(sample_ids)}\n"
    assert run(capsys, "--home", home, "stats", "--json")[1] == before
    assert commands_data.SAMPLE.is_file()


def test_export_graphml_writes_the_files_it_names(capsys, home, source, tmp_path):
    run(capsys, "--home", home, "import", str(source))
    code, out, err = run(capsys, "--home", home, "export", "--conv", "s1", "--format", "graphml",
                         "--out", str(tmp_path / "g.graphml"))
    assert code == 0, err
    written = [line.removeprefix("wrote ") for line in out.splitlines()]
    assert written and all(Path(p).is_file() and "<graphml" in Path(p).read_text() for p in written)


def test_export_as_of_a_day_writes_the_graphs_then_and_refuses_what_it_cannot(capsys, home, source, tmp_path):
    run(capsys, "--home", home, "import", str(source))
    out_path = tmp_path / "then.graphml"
    code, out, err = run(capsys, "--home", home, "export", "--conv", "s1", "--format", "graphml",
                         "--out", str(out_path), "--as-of", "2023-05-01")
    assert code == 0, err
    assert [line.removeprefix("wrote ") for line in out.splitlines()] == [
        str(tmp_path / "then-entities.graphml"), str(tmp_path / "then-events.graphml")]
    for argv, said in ((("--format", "graphml", "--out", str(tmp_path / "x.graphml"), "--as-of", "May 1st"),
                        "--as-of: expected a date (YYYY-MM-DD), got 'May 1st'"),
                       (("--as-of", "2023-05-01"), "--as-of: only the graphs are exported as of a day")):
        code, out, err = run(capsys, "--home", home, "export", "--conv", "s1", *argv)
        assert code != 0 and len(err.strip().splitlines()) == 1 and said in err, err
        assert not (tmp_path / "x-entities.graphml").exists()


@pytest.mark.slow
def test_setup_sample_builds_unbuilt_sessions_once(capsys, home):
    code, out, err = run(capsys, "--home", home, "setup-sample")
    assert code == 0, err
    lines = out.splitlines()
    stats = json.loads(run(capsys, "--home", home, "stats", "--json")[1])
    done = [line for line in lines if " done: " in line and ": session " in line]
    assert len(done) == stats["sessions"]  # one progress line per session
    assert stats["episodes"] > 0 and stats["records"] > 0
    code, out, _ = run(capsys, "--home", home, "setup-sample")
    assert code == 0 and out.startswith("sample already imported") and "building" not in out
