"""Canonical entities: alias merges by normalised name, name prefix, acronym and embedding."""

from __future__ import annotations

from memory_core.construct.embedcache import embed_texts
from memory_core.construct.entities import canonicalise, normalise_name
from memory_core.models import Record


def rec(n: int, entity: str, entity_type: str, prop: str, value: str) -> Record:
    return Record(id=f"c:S1:E1:R{n}", conv_id="c", episode_id="c:S1:E1", entity=entity,
                  entity_type=entity_type, property=prop, value=value, evidence_turn_ids=("D1:1",))


def test_normalise_name() -> None:
    assert normalise_name("The Support Groups!") == "support group"
    assert normalise_name("my LGBTQ+ support group") == "lgbtq support group"
    assert normalise_name("Melanie's kids") == "melanie's kid"


def test_aliases_merge_with_recorded_reasons(embedder) -> None:
    records = [
        rec(1, "Mel", "person", "likes", "painting"),
        rec(2, "Melanie", "person", "destination", "New York City"),
        rec(3, "Caroline", "person", "destination", "NYC"),
        rec(4, "support group", "concept", "description", "helpful"),
        rec(5, "The support group", "concept", "description", "welcoming"),
        rec(6, "colour", "concept", "description", "bright"),
        rec(7, "color", "concept", "description", "blue"),
        rec(8, "Jon", "person", "occupation", "banker"),
        rec(9, "John", "person", "occupation", "teacher"),
        rec(10, "Paris", "place", "description", "rainy"),
        rec(11, "London", "place", "description", "rainy"),
    ]
    canonical = canonicalise("c", records, ["Caroline", "Melanie"],
                             lambda names: embed_texts(embedder, names))
    by_name = {e.name: e for e in canonical.entities}
    merges = {(m.alias, m.reason) for m in canonical.merges}

    assert "Mel" in by_name["Melanie"].aliases
    assert ("Mel", "name prefix") in merges
    assert canonical.lookup("NYC") == canonical.lookup("New York City") == by_name["New York City"].id
    assert ("NYC", "acronym") in merges
    assert canonical.lookup("The support group") == by_name["support group"].id
    assert ("The support group", "normalised name") in merges
    colour = {canonical.lookup("colour"), canonical.lookup("color")}
    assert len(colour) == 1
    assert any(alias in ("color", "colour") and reason.startswith("embedding 0.9")
               for alias, reason in merges)
    # different people and different places stay apart
    assert canonical.lookup("Jon") != canonical.lookup("John")
    assert canonical.lookup("Paris") != canonical.lookup("London")
    assert by_name["Melanie"].id == "c:ent:melanie" and by_name["Melanie"].type == "person"
    assert len({e.id for e in canonical.entities}) == len(canonical.entities)


def test_annotator_merges_are_kept() -> None:
    records = [rec(1, "Gran", "person", "likes", "tea"), rec(2, "Grandma Rose", "person", "likes", "roses")]
    canonical = canonicalise("c", records, ["Anna"], None, annotator_merges=[("Grandma Rose", "Gran")])
    assert canonical.lookup("Gran") == canonical.lookup("Grandma Rose")
    assert [(m.alias, m.reason) for m in canonical.merges] == [("Gran", "annotator")]


def test_an_adopted_thing_is_an_animal_only_when_an_animal_is_named() -> None:
    records = [rec(1, "Anna", "person", "adopts", "version control"),
               rec(2, "Anna", "person", "adopts", "puppy"), rec(3, "Ben", "person", "adopts", "Biscuit"),
               rec(4, "Ben", "person", "adopts", "kitten of his own"),
               rec(5, "Ben", "person", "pet", "axolotl")]
    canonical = canonicalise("c", records, ["Anna", "Ben"], None)
    kinds = {e.name: e.type for e in canonical.entities}
    assert kinds.get("version control") == "concept", kinds
    assert kinds.get("puppy") == "animal" and kinds.get("Biscuit") == "animal", kinds
    assert kinds.get("kitten of his own") == "animal", kinds
    assert kinds.get("axolotl") == "animal", kinds  # a pet is an animal whatever word names its kind
