"""Curation on a memory made by the real offline build: the graph patch agrees with the build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"


def graph_state(services, conv: str):
    entities = services.raw_store().entities(conv)
    name = {e.id: e.name for e in entities}
    return (
        sorted((e.id, e.name, e.type, e.aliases, sorted((k, sorted(v)) for k, v in e.attributes.items()))
               for e in entities),
        sorted((name[g.source], name[g.target], g.property, g.record_ids)
               for g in services.raw_store().edges(conv)),
        sorted((name.get(m.canonical_id), m.alias, m.reason)
               for m in services.raw_store().entity_merges(conv)),
    )


@pytest.fixture(scope="module")
def sample_home(tmp_path_factory):
    """The sample conversation built once by the offline pipeline (copied per test)."""
    from memory_core.config import Settings
    from memory_core.services import Services

    home = tmp_path_factory.mktemp("built") / "home"
    services = Services(Settings(home=home))
    services.imports.import_file(SAMPLE)
    (conv,) = services.raw_store().conversation_ids()
    for _ in services.builds.build(conv):
        pass
    services.close()
    return home, conv


@pytest.fixture
def built_sample(sample_home, tmp_path, embedder):
    import shutil

    from memory_core.config import Settings
    from memory_core.services import Services

    home, conv = sample_home
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    services = Services(Settings(home=copy), embedder=embedder)
    yield services, conv
    services.close()


@pytest.mark.slow
def test_edits_on_a_built_memory_patch_the_graph_consistently(built_sample) -> None:
    services, conv = built_sample
    built = graph_state(services, conv)
    importance = {e.id: e.importance for e in services.raw_store().entities(conv)}
    services.curation.refresh_entity_graph(conv)  # the patch rules reproduce the build's graph exactly
    assert graph_state(services, conv) == built
    assert {e.id: e.importance for e in services.raw_store().entities(conv)} == importance
    records = services.raw_store().records(conv)
    by_entity: dict[str, list] = {}
    for r in records:
        by_entity.setdefault(r.entity, []).append(r)
    names = sorted(by_entity, key=lambda n: -len(by_entity[n]))
    top, second = names[0], names[1]
    small = next(n for n in reversed(names) if n not in (top, second))

    first = by_entity[top][0]
    services.curation.edit_record(first.id, {"value": "a corrected value"}, who="ana",
            expected_version=first.version)
    services.curation.mark_wrong(by_entity[second][0].id, who="ana")
    episode = services.raw_store().episodes(conv)[0]
    services.curation.create_record(conv, episode.id, {"entity": top, "entity_type": "person",
            "property": "likes",
                                              "value": small}, [episode.turn_ids[0]], who="ana")
    merge = services.curation.merge_entities(conv, top, small, who="ana", why="same")
    patched = graph_state(services, conv)
    assert patched != built
    assert small not in {e.name for e in services.raw_store().entities(conv)}
    assert (top, small, "annotator") in patched[2]
    untouched = [e for e in services.raw_store().entities(conv)
                 if e.id in importance and e.name not in (top, second)]
    assert any(e.importance == importance[e.id] for e in untouched)  # build scores kept elsewhere

    services.curation.refresh_entity_graph(conv)  # recompute everything with the same rules
    assert graph_state(services, conv) == patched

    services.curation.revert_edit(merge.id, who="ana")
    assert small in {e.name for e in services.raw_store().entities(conv)}
    exported = [json.loads(line) for line in services.curation.export_corrected_records(conv).splitlines()]
    assert any(r["value"] == "a corrected value" for r in exported)
    assert all(r["status"] == "active" for r in exported)
