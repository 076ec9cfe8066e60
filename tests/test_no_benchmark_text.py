"""No benchmark question wording in the library: every question of five words or more from the
shared bench files (LoCoMo, REALTALK, BEAM, LongMemEval) is searched for in every file under
``memory_core/`` (code, comments, docstrings, the fitted ranker's JSON)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCOMO_LAYOUT = ("locomo_dev.json", "realtalk_tune.json", "realtalk_check.json", "beam_tune.json",
                 "beam_check.json")
LONGMEMEVAL = ("lme_s_dev.json", "lme_s_pool_tune.json", "lme_s_pool_check.json")
MIN_WORDS = 5


def normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def bench_questions(bench: Callable[[str], Path]) -> set[str]:
    out: list[str] = []
    for name in LOCOMO_LAYOUT:
        for sample in json.loads(bench(name).read_text(encoding="utf-8")):
            out += [str(q.get("question") or "") for q in sample.get("qa") or ()]
    for name in LONGMEMEVAL:
        items = json.loads(bench(name).read_text(encoding="utf-8"))
        out += [str(item.get("question") or "") for item in items]
    return {n for n in map(normalise, out) if len(n.split()) >= MIN_WORDS}


def quoted(questions: Iterable[str], files: Iterable[Path]) -> list[tuple[str, str]]:
    """(file, question) for every question whose words appear in a file, in order."""
    hits = []
    for path in files:
        text = " " + normalise(path.read_text(encoding="utf-8", errors="ignore")) + " "
        hits += [(str(path), q) for q in questions if f" {q} " in text]
    return hits


def library_files() -> list[Path]:
    kinds = (".py", ".json", ".md", ".txt")
    return sorted(p for p in (ROOT / "memory_core").rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix in kinds)


def test_no_benchmark_question_appears_in_the_library(bench: Callable[[str], Path]) -> None:
    questions = bench_questions(bench)
    assert len(questions) > 700  # every file was read (dozens to hundreds of questions each)
    files = library_files()
    assert any(p.name == "retrieve.py" for p in files)
    assert quoted(questions, files) == []


def test_the_scan_finds_a_quoted_question(bench: Callable[[str], Path], tmp_path: Path) -> None:
    question = sorted(bench_questions(bench))[0]
    planted = tmp_path / "rule.py"
    planted.write_text(f'PATTERN = "{question.upper()}?"  # quoted from a benchmark\n', encoding="utf-8")
    clean = tmp_path / "clean.py"
    clean.write_text('PATTERN = "which colour is the invented kite of Zorblat"\n', encoding="utf-8")
    assert quoted([question], [planted, clean]) == [(str(planted), question)]
