"""BuildService and the ``build`` / ``bench build`` commands on the shipped sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory_core.cli import main
from memory_core.errors import ConfigError, StoreError
from tests.conftest import SAMPLE


def test_service_build_graphs_history_and_export(services: Any, tmp_path: Path) -> None:
    (conv_id,) = services.imports.import_file(SAMPLE).ids
    events = list(services.builds.build(conv_id))
    assert events[0].backend == "offline" and events[-1].kind == "build_done"
    assert services.builds.episodes(conv_id)
    entities = services.raw_store().entities(conv_id)
    assert len(services.builds.entity_graph(conv_id).nodes) == len(entities)
    assert len(services.builds.event_graph(conv_id).nodes) == len(services.raw_store().events(conv_id))
    assert [h.backend for h in services.builds.build_history(conv_id)] == ["offline"]
    paths = services.builds.export_graphml(conv_id, tmp_path / "graphs")
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    again = [e.kind for e in services.builds.build(conv_id, backend=services.backend)]
    assert "session_started" not in again
    with pytest.raises(ConfigError):
        list(services.builds.build(conv_id, backend=object()))
    by_name = list(services.builds.build(conv_id, backend="offline"))  # a name, as evaluation takes
    assert by_name[0].backend == "offline" and "session_started" not in [e.kind for e in by_name]
    with pytest.raises(ConfigError, match="unknown backend 'nope'"):
        list(services.builds.build(conv_id, backend="nope"))
    with pytest.raises(StoreError):
        list(services.builds.build("no-such-conversation"))


@pytest.mark.slow  # two builds of the sample; the fast lane keeps the service build above and
# the CLI `build` of tests/llm/test_cli_cache_only.py
def test_cli_build_and_bench(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "import", str(SAMPLE)]) == 0
    capsys.readouterr()
    assert main(["--home", home, "build", "--all"]) == 0
    out, err = capsys.readouterr()
    assert "demo-maya-jonas: built" in out and "turns/s" in out and "stages:" in out
    assert "] " in err and "turns" in err  # the progress bar
    assert main(["--home", home, "build", "--conv", "nope"]) == 1
    assert "unknown conversation 'nope'" in capsys.readouterr().err
    assert main(["--home", str(tmp_path / "bench"), "bench", "build", str(SAMPLE)]) == 0
    out, _ = capsys.readouterr()
    assert "demo-maya-jonas" in out
    assert "episodes" in out and "per turn" in out and "peak RSS" in out
