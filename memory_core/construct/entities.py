"""Canonical entities: mentions grouped into one entity each, every alias merge recorded.

Mentions are the entities of records and the values of relation records (``pet: Oliver``,
``destination: Paris``). They are merged in four steps, each leaving an ``EntityMerge`` with
its reason and score:

1. ``normalised name`` (1.0) — same name after lower-casing, dropping articles/possessive
   determiners and punctuation, and a plural ``s`` ("The support group" = "support groups");
2. ``name prefix`` (len(alias)/len(name)) — a one-word person name that starts another
   person's first name and matches no other one ("Mel" → "Melanie"), speakers first; a
   speaker is never the alias, and a possessive phrase is never the name ("Jonas's mom" is
   its own entity, linked to Jonas by its relation record, never an alias of Jonas);
   ``speaker alias`` (1.0) — the name a speaker goes by (a ``goes_by`` record: a
   self-introduction, or how the other speaker addresses them) joins that speaker;
3. ``acronym`` (1.0) — letters equal to the initials of a multi-word name ("NYC" →
   "New York City");
4. ``embedding <cos>`` — two non-person names of the same type whose MiniLM vectors have
   cosine ≥ ``EMBED_THRESHOLD`` (people are never merged by embedding: "Jon" and "John"
   are different people).

A group's type is the mentions' vote, outweighed by a record that says what the name is
(``is_a``, ``occupation``, ``species``) and, for a name the mentions call a person, by the talk
around it (``animal_names``: "Pepper cut her paw" in enough of its turns makes Pepper an animal).

Merges an annotator made earlier (reason ``annotator``) are applied first and kept. The
canonical name is a speaker's name when one is in the group, else the most frequent spelling
(on ties: one without a leading article, then the longest). Entity ids are
``<conv>:ent:<slug of the canonical name>``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from networkx.utils import UnionFind

from memory_core.construct import lexicon
from memory_core.models import Entity, EntityMerge, Record
from memory_core.timeexpr import MONTH_NAMES, MONTHS

EMBED_THRESHOLD = 0.9
MAX_MENTION_WORDS = 6  # a relation value longer than this is not an entity mention
ANNOTATOR = "annotator"
_ARTICLES = re.compile(r"^(?:the|a|an|my|our|your|his|her|their|this|that|these|those)\s+", re.I)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "entity"


def normalise_name(name: str) -> str:
    text = " ".join(name.replace("’", "'").split()).strip(" .,!?;:'\"()[]")
    while True:
        stripped = _ARTICLES.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"[^\w' ]+", " ", text.lower())
    words = text.split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith(("ss", "'s", "us",
                                                                                           "is")):
        words[-1] = words[-1][:-1]
    return " ".join(words)


@dataclass
class _Group:
    key: str
    spellings: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    speaker: str | None = None

    @property
    def type(self) -> str:
        if self.speaker:
            return "person"
        specific = [(t, n) for t, n in self.types.most_common() if t not in ("concept", "other", "")]
        return specific[0][0] if specific else (self.types.most_common(1)[0][0] if self.types else "concept")

    @property
    def name(self) -> str:
        if self.speaker:
            return self.speaker
        # most frequent; then without a leading article ("support group" over "The support group"); longest
        return max(self.spellings.items(),
                   key=lambda kv: (kv[1], _ARTICLES.match(kv[0]) is None, len(kv[0]), kv[0]))[0]


@dataclass
class Canonical:
    """The result: entities, merges, and a lookup from any spelling to its entity id."""

    entities: list[Entity]
    merges: list[EntityMerge]
    by_key: dict[str, str]  # normalised spelling -> entity id

    def lookup(self, name: str) -> str | None:
        return self.by_key.get(normalise_name(name))


GOES_BY = "goes_by"
# "Kleiwerk is_a studio", "Rex species dog": the record's entity type is the entity's type
TYPE_DECIDING = frozenset({"is_a", "occupation", "species"})
DECIDES = 100  # the weight of such a record in the type vote (a mention counts 1)
_KIN_PROPERTIES = {p.name: p for p in lexicon.KIN.values()}  # spouse, child, pet, colleague, ...
# what a common noun (no capital letter) can be as a relation value: a person only when it names
# one ("mom", "coworker", "teacher"), never an organisation ("job", "team" are no company names)
_PERSON_NOUNS = frozenset(lexicon.KIN) | lexicon.OCCUPATIONS
_GROUP_NOUNS = frozenset({"team", "family", "relatives", "in-laws", "crew", "band", "club", "group"})


def value_type(value: str, declared: str) -> str:
    """The entity type of a relation value: the property's declared type, except that a common
    noun is an organisation never, a person only when its head noun names a person, and a group
    when it names several ("Maya's team"). A name inside a common noun's phrase does not make it
    a name: "the new May 3 deadline" one meets is a concept."""
    words = value.split()
    head = words[-1].lower().strip(".,!?") if words else ""
    if declared == "person" and head in _GROUP_NOUNS:
        return "group"  # "Maya's team" is people, not a person
    named = bool(words) and words[-1][:1].isupper() if declared == "person" and "'s " not in value \
        else any(c.isupper() for c in value)
    if named or declared not in ("person", "organization"):
        return declared
    if declared == "person" and (head in _PERSON_NOUNS or head.rstrip("s") in _PERSON_NOUNS
                                 or "'s " in value):
        return declared
    return "concept"


# a value that opens with one of these is a phrase around a thing ("to the mall", "with two
# friends", "it a certain way", "when we met"), not the thing's name
_PHRASE_OPENERS = frozenset({
    "to", "with", "at", "in", "on", "of", "for", "from", "by", "about", "into", "onto", "like", "as", "than",
    "it", "i", "me", "you", "he", "him", "she", "her", "we", "us", "they", "them", "this", "that", "these",
    "those", "when", "where", "while", "if", "because", "how", "what", "why", "who",
})
# unless every word is capitalised (a title: "Under Armour", "Walk With Me"), a value that opens
# with one of these ("so far", "without a map", "through the week") or goes on with one of the
# joiners after its first word ("the dog to a vet", "sausages around the fire", "a cousin but no
# luck") is a thing with where it went or what came with it
_LOWER_OPENERS = frozenset({
    "without", "through", "around", "across", "over", "under", "after", "before", "during", "since", "until",
    "so", "very", "really", "just", "often", "also", "still", "even", "too",
})
_PHRASE_JOINERS = frozenset({
    "to", "with", "at", "in", "on", "into", "onto", "from", "about", "around", "through", "without", "but",
    "because", "while", "when", "if", "than",
})


def _phrase(said: list[str]) -> bool:
    """The value's words read as a phrase around a thing, not as the thing's name."""
    if said[0].lower() in _PHRASE_OPENERS:
        return True
    if all(w[:1].isupper() or not w[:1].isalpha() for w in said):
        return False  # a title
    return said[0].lower() in _LOWER_OPENERS or any(w.lower() in _PHRASE_JOINERS for w in said[1:])


def record_mentions(r: Record) -> list[tuple[str, str, bool]]:
    """(name, type, as_entity) of one record's entity mentions: its entity, and its value when
    the property is a relation and the value is short enough to be a name and does not read
    like a phrase (``_phrase``); the name a person goes by is a mention of a person."""
    out = [(r.entity, r.entity_type, True)]
    prop = lexicon.prop_for(r.property)
    said = r.value.split()
    if r.property == GOES_BY and r.value:
        out.append((r.value, "person", False))
    elif prop.relation and said and len(said) <= MAX_MENTION_WORDS and not _phrase(said) \
            and not _calendar_only(said):
        kind = value_type(r.value, prop.value_type)
        if kind == "animal" and r.property not in _KIN_PROPERTIES and not _animal_said(r.value):
            kind = "concept"  # "adopted version control" names no animal; a pet is one whatever its kind
        out.append((r.value, kind, False))
    return out


_SHORT_MONTHS = frozenset(m for m in MONTHS if m not in MONTH_NAMES and m != "jan")


def _calendar_only(said: list[str]) -> bool:
    """"Feb", "March 2024", "May 3": a month with its day or year names a time, not someone
    ("tutorials dated Feb 2024" dates no one)."""
    words = [w.lower().strip(".,!?") for w in said]
    # a month's name alone may be someone's ("April", "May", "Jan"): a day or a year must come
    # with it, unless the month is written short as no one is called
    return all(w in MONTHS or w.isdigit() for w in words) and (
        any(w.isdigit() for w in words) or all(w in _SHORT_MONTHS for w in words))


def _animal_said(value: str) -> bool:
    """A name, or an animal word ("a cat of her own", "two kittens")."""
    said = [w.lower().strip(".,!?") for w in value.split()]
    return any(c.isupper() for c in value) or any(
        w in lexicon.ANIMAL_CUES or w.removesuffix("s") in lexicon.ANIMAL_CUES for w in said)


def mentions(records: Sequence[Record]) -> list[tuple[str, str]]:
    """(name, type) of every entity mention: record entities first, then relation values."""
    found = [record_mentions(r) for r in records]
    return ([(name, kind) for ms in found for name, kind, as_entity in ms if as_entity]
            + [(name, kind) for ms in found for name, kind, as_entity in ms if not as_entity])


ANIMAL_TURNS, ANIMAL_SHARE = 2, 0.25  # cue turns a name needs (count, share of its turns)


_INNER_NAME_RE = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+\b")  # capitalised after a lower-case word


def animal_names(names: Sequence[str], turn_texts: Sequence[str]) -> set[str]:
    """The names the talk treats as animals: a name whose turns (each with the reply to it)
    carry an animal word (``lexicon.ANIMAL_CUES``: "dog", "paw", "meow", ...) in at least
    ``ANIMAL_TURNS`` turns and ``ANIMAL_SHARE`` of the turns that name it ("Pepper cut her paw",
    "Biscuit sends a meow"), unless the talk writes the cue as a name ("written in Python")."""
    # a cue the talk capitalises inside a sentence is a name there ("in Python 3.12"), no animal
    named = {w.lower() for t in turn_texts for w in _INNER_NAME_RE.findall(t)}
    cues = lexicon.ANIMAL_CUES - named
    words = [set(re.findall(r"[a-z]+", t.lower())) for t in turn_texts]
    cued = [bool(w & cues) or (i + 1 < len(words) and bool(words[i + 1] & cues)) for i, w in enumerate(words)]
    out: set[str] = set()
    for name in names:
        said = re.compile(rf"\b{re.escape(name)}\b")
        turns = [i for i, t in enumerate(turn_texts) if name in t and said.search(t)]
        hits = sum(cued[i] for i in turns)
        if hits >= ANIMAL_TURNS and hits >= ANIMAL_SHARE * len(turns):
            out.add(name)
    return out


PLACE_SHARE = 0.5  # share of the turns naming a name that say it the way places are said
# how a place is said: after a preposition of place, or as where one goes or comes from
_PLACE_CUE = (r"(?i:\b(?:in|near|around|outside|across|through|from|visit|visits|visited|visiting)"
              r"|\b(?:go|goes|going|went|move|moves|moved|moving|travel|travels|traveled|travelled|trip|train"
              r"|flight|fly|flew|drive|drove|back|came|come|coming|head|headed|heading)\s+(?:to|back\s+to))"
              r"\s+(?:the\s+)?")


def place_names(names: Sequence[str], turn_texts: Sequence[str]) -> set[str]:
    """The names the talk treats as places: a name said after a word of place ("in Haarlem",
    "a train to Haarlem", "visiting Haarlem") in at least ``PLACE_SHARE`` of the turns that name
    it (and in two turns when it is named more than twice). The small NER model calls many a
    town a person."""
    out: set[str] = set()
    for name in names:
        said = re.compile(rf"\b{re.escape(name)}\b")
        placed = re.compile(rf"{_PLACE_CUE}{re.escape(name)}\b")
        turns = [t for t in turn_texts if name in t and said.search(t)]
        hits = sum(bool(placed.search(t)) for t in turns)
        if hits and hits >= PLACE_SHARE * len(turns) and (hits >= 2 or len(turns) <= 2):
            out.add(name)
    return out


# nouns that say a name is someone's: kin, occupations, "a guy", "my advisor"
# (not "team" or "family": a group's nouns)
_PERSON_SET = frozenset({w for w, p in lexicon.KIN.items() if p is not lexicon.PET} | lexicon.PERSON_NOUNS
                        | lexicon.OCCUPATIONS | {"advisor", "adviser", "classmate", "peer", "producer",
                                                 "director", "reviewer"}) - {"team", "family"}
_PERSON_NOUN = "|".join(re.escape(w) for w in sorted(_PERSON_SET, key=len, reverse=True))
_TITLE = "|".join(sorted(lexicon.TITLES, key=len, reverse=True))
# how people are said, just before a name and just after it
_PERSON_BEFORE = re.compile(rf"(?i:\b(?:{_TITLE})\.?\s+"
                            rf"|\b(?:my|our|your|his|her)\s+(?:[\w'’-]+\s+){{0,2}}?(?:{_PERSON_NOUN})\s+)$")
_PERSON_AFTER = re.compile(rf",\s+(?i:who\b|(?:a|an|my|our|your|his|her|the)\s+(?:[\w'’-]+\s+){{0,3}}?"
                           rf"(?:{_PERSON_NOUN})\b)")
_WINDOW = 80  # characters on each side of a name that its cues are looked for in


def _names_a_person(value: str) -> bool:
    """Is a noun phrase's head a person noun ("a veteran producer", "peers", "my advisor")?"""
    said = value.lower().split()
    head = said[-1].strip(".,!?") if said else ""
    return head in _PERSON_SET or (head.endswith("s") and head[:-1] in _PERSON_SET)


def _cued_turns(name: str, turn_texts: Sequence[str],
                cue: Callable[[str, int, int], bool]) -> tuple[int, int]:
    """(turns naming ``name`` where ``cue(text, start, end)`` holds for some saying of it, turns
    naming it)."""
    said = re.compile(rf"(?<![\w'’]){re.escape(name)}(?!\w)")
    hits = named = 0
    for text in turn_texts:
        if name not in text:
            continue
        spots = [m.span() for m in said.finditer(text)]
        named += bool(spots)
        hits += any(cue(text, a, b) for a, b in spots)
    return hits, named


def _said_as_person(text: str, a: int, b: int) -> bool:
    return bool(_PERSON_BEFORE.search(text, max(0, a - _WINDOW), a)
                or _PERSON_AFTER.match(text, b, b + _WINDOW))


def person_names(names: Sequence[str], turn_texts: Sequence[str]) -> set[str]:
    """The capitalised names the talk says the way people are said, in at least one turn:
    after a title ("Professor Ines"), before ", who", with a person noun in apposition ("Ines,
    a close friend", "Ines, an 81-year-old potter") or after one ("my advisor Ines"). The small
    NER model calls many a first name an organisation."""
    return {name for name in names
            if name[:1].isupper() and _cued_turns(name, turn_texts, _said_as_person)[0] > 0}


TOOL_TURNS, TOOL_SHARE = 2, 0.2  # cue turns a name needs to be a tool (count, share of its turns)
_TOOL_KINDS = (r"tools?|apps?|applications?|software|platforms?|programs?|extensions?|services?|websites?"
               r"|sites?|editors?|libraries|library|frameworks?|alternatives?")
_TOOL_USE = (r"use|uses|used|using|utili[sz]e|utili[sz]ing|install|installed|installing|download|downloaded"
             r"|downloading|switch(?:ed|ing)?\s+to|subscribe[ds]?\s+to|(?:try|tries|tried|trying)\s+out")
# how tools are said: used ("using X", not "using X's notes"), listed as one ("apps like A, B or
# X"), said to be one ("X is a free app"), with an account or a plugin ("X account"), linked to
# its web address
_TOOL_LISTED = re.compile(rf"(?i:\b(?:{_TOOL_KINDS})\s+(?:like|such\s+as|called|named)\s+)"
                          rf"(?:[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)*,?\s+(?:(?:and|or)\s+)?){{0,4}}$")
_TOOL_USED = re.compile(rf"(?i:\b(?:{_TOOL_USE})\s+(?:the\s+)?)$")
_TOOL_AFTER = re.compile(rf"(?:\s+(?i:is|was)\s+(?i:a|an)\s+(?:[\w-]+\s+){{0,3}}?(?i:{_TOOL_KINDS})\b"
                         r"|(?:['’]s)?\s+(?i:app|software|extension|plugin|account|subscription|website)\b"
                         r"|\]\(https?://)")  # a link to a web address: "[Kilnlog](https://kilnlog.example)"


def _said_as_tool(text: str, a: int, b: int) -> bool:
    start = max(0, a - _WINDOW)
    return bool(_TOOL_LISTED.search(text, start, a) or _TOOL_AFTER.match(text, b, b + _WINDOW)
                or (_TOOL_USED.search(text, start, a) and not text.startswith(("'s", "’s"), b)))


def tool_names(names: Sequence[str], turn_texts: Sequence[str]) -> set[str]:
    """The names the talk treats as tools, apps or services: used, installed or downloaded
    ("using Kilnlog"), listed as one ("apps like Kilnlog or Glazr"), said to be one ("Kilnlog is
    a free planning app"), with an account or a plugin, linked to its web address — in
    ``TOOL_TURNS`` turns (or every turn that names it, when fewer do) and ``TOOL_SHARE`` of the
    turns that name it. The small NER model calls many a product a person."""
    out: set[str] = set()
    for name in names:
        hits, named = _cued_turns(name, turn_texts, _said_as_tool)
        if hits and hits >= min(TOOL_TURNS, named) and hits >= TOOL_SHARE * named:
            out.add(name)
    return out


def canonicalise(conv_id: str, records: Sequence[Record], speakers: Sequence[str],
                 embed: Callable[[list[str]], np.ndarray] | None = None,
                 annotator_merges: Sequence[tuple[str, str]] = (),
                 turn_texts: Sequence[str] = ()) -> Canonical:
    """Group mentions into canonical entities (see the module docstring for the rules);
    ``turn_texts`` (the conversation's turns) let the talk around a name type it an animal."""
    groups: dict[str, _Group] = {}
    for name, kind in mentions(records):
        key = normalise_name(name)
        if not key:
            continue
        g = groups.setdefault(key, _Group(key))
        g.spellings[name.strip()] += 1
        g.types[kind] += 1
    for s in speakers:
        key = normalise_name(s)
        if key:
            g = groups.setdefault(key, _Group(key))
            g.speaker = s
            g.spellings[s] += 0

    # networkx's union-find holds the partition; ``head`` names each set's canonical key (the
    # side a merge keeps), which networkx's size-based root choice does not preserve
    sets = UnionFind(groups)
    head: dict[str, str] = {k: k for k in groups}
    reasons: dict[str, tuple[str, float]] = {}

    def find(k: str) -> str:
        return head[sets[k]]

    def union(alias: str, keep: str, reason: str, score: float) -> None:
        ra, rk = find(alias), find(keep)
        if ra == rk:
            return
        if groups[ra].speaker and groups[rk].speaker and reason != ANNOTATOR:
            return  # two speakers are two people
        if groups[ra].speaker and not groups[rk].speaker:
            ra, rk = rk, ra  # a speaker is always the canonical side
        sets.union(ra, rk)
        head[sets[rk]] = rk
        reasons[ra] = (reason, round(score, 4))

    # 0. annotator merges are kept
    for keep, alias in annotator_merges:
        ka, kk = normalise_name(alias), normalise_name(keep)
        if ka in groups and kk in groups:
            union(ka, kk, ANNOTATOR, 1.0)
    # what a name was introduced as decides its type ("a studio called Kleiwerk" is no person);
    # so, a little less, does what it was introduced as in someone's family ("my wife Julia" is
    # a person whatever the sentences about her read like)
    for r in records:
        kin = _KIN_PROPERTIES.get(r.property)
        if r.property in TYPE_DECIDING:  # "Ines is_a advisor" says a person, whatever NER said
            kind = "person" if _names_a_person(r.value) else r.entity_type
            key, weight = normalise_name(r.entity), DECIDES
        elif kin is not None:
            key, kind, weight = normalise_name(r.value), value_type(r.value, kin.value_type), DECIDES // 2
        else:
            continue
        if key in groups and not groups[key].speaker:
            groups[key].types[kind] += weight
    # the talk around a capitalised name the mentions call a person may say it is an animal; a
    # record that decides the type (is_a, occupation) still outweighs it
    if turn_texts:
        named = {g.name: k for k, g in groups.items() if g.type == "person" and not g.speaker
                 and g.name[:1].isupper() and "'" not in g.name}
        for name in animal_names(list(named), turn_texts):
            groups[named[name]].types["animal"] += DECIDES // 2
        # ... or a place ("here in Utrecht", "my mom lives in Kiel")
        for name in place_names([n for n in named if groups[named[n]].type == "person"], turn_texts):
            groups[named[name]].types["place"] += DECIDES // 2
        # ... and one the mentions call an organisation or a place may be said as someone is
        # ("Professor Ines", "Ines, a close friend")
        others = {g.name: k for k, g in groups.items() if g.type not in ("person", "animal") and not g.speaker
                  and "'" not in g.name}
        for name in person_names(list(others), turn_texts):
            groups[others[name]].types["person"] += DECIDES // 2
        # ... and a "person" or "place" may be a tool the talk uses ("using Kilnlog")
        used = {g.name: k for k, g in groups.items() if g.type in ("person", "place") and not g.speaker
                and g.name[:1].isupper() and "'" not in g.name}
        for name in tool_names(list(used), turn_texts):
            groups[used[name]].types["object"] += DECIDES // 2
    # 1b. the names speakers go by: "Kat" -> "Katherine Miller"; a name claimed for two speakers
    # (or that is another speaker's) joins nobody, and two speakers are never one entity
    claims: dict[str, set[str]] = defaultdict(set)
    for r in records:
        if r.property == GOES_BY and r.value:
            claims[normalise_name(r.value)].add(normalise_name(r.entity))
    for ka, owners in claims.items():
        kk = next(iter(owners))
        if len(owners) == 1 and ka in groups and kk in groups and ka != kk and not groups[ka].speaker \
                and not groups[find(ka)].speaker:
            union(ka, kk, "speaker alias", 1.0)
    # 2. name prefix: "Mel" -> "Melanie"; never a speaker as the alias, never a possessive
    # phrase as the name ("Jonas" is no short form of "Jonas's mom")
    persons = [k for k, g in groups.items() if (g.type == "person" or g.speaker)]
    firsts = {k: k.split()[0] for k in persons if k.split()[0].isalpha()}
    ordered = sorted(firsts, key=lambda k: (groups[k].speaker is None, k))
    for k in persons:
        if " " in k or len(k) < 3 or groups[k].speaker:
            continue
        matches = [o for o in ordered if o != k and firsts[o] != k and firsts[o].startswith(k)]
        names = {firsts[o] for o in matches}
        if matches and len(names) == 1:
            union(k, matches[0], "name prefix", len(k) / len(firsts[matches[0]]))
    # 3. acronyms: "NYC" -> "New York City"
    initials: dict[str, list[str]] = defaultdict(list)
    for k in groups:
        words = [w for w in k.split() if w not in ("of", "and", "the", "for")]
        if len(words) >= 2:
            initials["".join(w[0] for w in words)].append(k)
    for k, g in groups.items():
        compact = k.replace(" ", "")
        if 2 <= len(compact) <= 6 and compact.isalpha() and any(s.isupper() for s in g.spellings) \
                and len(initials.get(compact, [])) == 1:
            union(k, initials[compact][0], "acronym", 1.0)
    # 4. embedding similarity for non-person names of one type
    if embed is not None:
        _embedding_merges(groups, find, union, embed)

    # build entities
    members: dict[str, list[str]] = defaultdict(list)
    for k in groups:
        members[find(k)].append(k)
    entities: list[Entity] = []
    merges: list[EntityMerge] = []
    by_key: dict[str, str] = {}
    used_ids: set[str] = set()
    for root, keys in sorted(members.items()):
        spellings: Counter[str] = Counter()
        types: Counter[str] = Counter()
        for k in keys:
            spellings.update(groups[k].spellings)
            types.update(groups[k].types)
        merged = _Group(root, spellings, types, groups[root].speaker or next(
            (groups[k].speaker for k in keys if groups[k].speaker), None))
        name = merged.name
        entity_id = f"{conv_id}:ent:{slug(name)}"
        if entity_id in used_ids:
            entity_id = f"{entity_id}_{slug(merged.type)}"
        n = 2
        while entity_id in used_ids:
            entity_id = f"{conv_id}:ent:{slug(name)}_{n}"
            n += 1
        used_ids.add(entity_id)
        aliases = sorted({s for s in spellings if s and s != name}, key=str.lower)
        entities.append(Entity(id=entity_id, conv_id=conv_id, name=name, type=merged.type,
                               aliases=tuple(aliases)))
        for k in keys:
            by_key[k] = entity_id
            reason, score = reasons.get(k, ("normalised name", 1.0))
            for s in groups[k].spellings:
                if s and s != name:
                    merges.append(EntityMerge(conv_id=conv_id, canonical_id=entity_id, alias=s,
                                              reason=reason if k != root else "normalised name",
                                              score=score if k != root else 1.0))
    return Canonical(entities, merges, by_key)


def _embedding_merges(groups: dict[str, _Group], find: Callable[[str], str],
                      union: Callable[[str, str, str, float], None],
                      embed: Callable[[list[str]], np.ndarray]) -> None:
    by_type: dict[str, list[str]] = defaultdict(list)
    for k, g in groups.items():
        if g.type != "person" and not g.speaker and len(k.split()) <= 4 and len(k) >= 3:
            by_type[g.type].append(k)
    keys = [k for ks in by_type.values() for k in ks]
    if len(keys) < 2:
        return
    vectors = embed([groups[k].name for k in keys])
    index = {k: i for i, k in enumerate(keys)}
    pairs: list[tuple[float, str, str]] = []
    for ks in by_type.values():
        if len(ks) < 2:
            continue
        v = vectors[[index[k] for k in ks]]
        sims = v @ v.T
        rows, cols = np.where(np.triu(sims, 1) >= EMBED_THRESHOLD)
        pairs.extend((float(sims[i, j]), ks[i], ks[j]) for i, j in zip(rows, cols, strict=True))
    for score, a, b in sorted(pairs, reverse=True):
        # the more frequent name is kept
        weight_a, weight_b = sum(groups[a].spellings.values()), sum(groups[b].spellings.values())
        alias, keep = (a, b) if weight_a < weight_b else (b, a)
        union(alias, keep, f"embedding {score:.2f}", score)
