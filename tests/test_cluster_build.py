"""Issue 13.4 — conversations built on a Dask LocalCluster (2 workers) against PostgreSQL + a
Chroma server equal a serial build: same episode, record and entity ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from robustness.test_forget import sample

from memory_core.cli import main
from memory_core.config import Settings
from memory_core.services import Services


def ids(services: Services, conv: str) -> tuple[list[str], list[str], list[str]]:
    store = services.store
    return ([e.id for e in store.episodes(conv)], sorted(r.id for r in store.records(conv)),
            sorted(e.id for e in store.entities(conv)))


@pytest.mark.slow
def test_two_workers_build_what_a_serial_build_builds(pg_cluster, chroma_server, tmp_path: Path,
                                                      embedder, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "three.json"
    data.write_text(json.dumps([sample("c-a", "Miso"), sample("c-b", "Pixel"), sample("c-c", "Toast")]))
    serial_db, cluster_db = pg_cluster.fresh(), pg_cluster.fresh()
    serial = Settings(home=tmp_path / "serial", database_url=pg_cluster.url(serial_db),
                      chroma_url=chroma_server.fresh())
    services = Services(serial, embedder=embedder)
    services.import_file(data)
    for conv in ("c-a", "c-b", "c-c"):
        for _ in services.build(conv):
            pass
    expected = {conv: ids(services, conv) for conv in ("c-a", "c-b", "c-c")}
    services.close()

    chroma = chroma_server.fresh()
    monkeypatch.setenv("MNEMOSCOPE_CHROMA_URL", chroma)
    home = ["--home", str(tmp_path / "cluster"), "--database", pg_cluster.url(cluster_db)]
    assert main([*home, "import", str(data)]) == 0
    assert main([*home, "build-cluster", "--all", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 conversations built" in out
    built = Services(Settings(home=tmp_path / "cluster", database_url=pg_cluster.url(cluster_db),
                              chroma_url=chroma), embedder=embedder)
    try:
        assert {conv: ids(built, conv) for conv in ("c-a", "c-b", "c-c")} == expected
        assert built.index.count("turns") == 15
    finally:
        built.close()
    pg_cluster.drop(serial_db)
    pg_cluster.drop(cluster_db)


def test_build_cluster_needs_the_servers(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["--home", str(tmp_path), "build-cluster", "--all", "--workers", "2"]) == 1
    assert "build-cluster: workers share the home through servers" in capsys.readouterr().err
