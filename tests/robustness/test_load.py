"""Issue 7.6 — a short run of benchmarks/load_test.py: 8 users asking and editing at once for
10 seconds on one services object: no error, no lost or overwritten edit.

The 2-minute run on the built sample is the benchmark itself (figures in the closing note)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.curation.handmade import CONV, index_records, load

ROOT = Path(__file__).resolve().parents[2]


def load_test_module():
    spec = importlib.util.spec_from_file_location("load_test", ROOT / "benchmarks" / "load_test.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["load_test"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # runs for 10 s by design; test_concurrency.py covers the same edits in the fast lane
def test_eight_users_ten_seconds(services) -> None:
    lt = load_test_module()
    load(services.raw_store())
    index_records(services)
    services.curation.refresh_entity_graph(CONV)
    services.queries.ask(CONV, "Where is Ben going?")  # warm the model and the indexes
    report = lt.run_load(services, CONV, users=8, duration=10.0, edit_share=0.4, hot_records=3)
    print("\n".join(report.lines()))
    assert report.errors == []
    assert report.lost == []
    assert report.asks and report.saved and report.conflicts > 0  # the users did collide
    # the checker itself notices a lost edit
    ghost = lt.SavedEdit(report.saved[0].record_id, 999, "never saved", 0.5, "ghost")
    assert lt.check_edits(services, CONV, [*report.saved, ghost], 0)
