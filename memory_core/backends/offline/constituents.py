"""Complete constituents of an evidence sentence: the pieces an answer may be.

    constituents(doc) -> [Constituent]

Read from a spaCy parse of one sentence (the offline backend parses; this module only reads
the parse). Every piece is whole — a named entity, a noun phrase (with a short prepositional
tail: "a dog shelter near the harbour"), a verb's argument (its object, complement or
predicate), the predicate without its subject ("cut it on some glass"), a quoted title, or
the sentence itself — so an answer built from one never ends in a cut-off word or a dangling
preposition. Which piece answers a question is not decided here: ``answer_model`` scores
them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

# named-entity labels -> constituent kinds
ENTITY_KINDS: dict[str, str] = {
    "PERSON": "person",
    "GPE": "place", "LOC": "place", "FAC": "place",
    "ORG": "org", "NORP": "group",
    "DATE": "date", "TIME": "date",
    "CARDINAL": "number", "QUANTITY": "number", "MONEY": "number", "PERCENT": "number",
    "ORDINAL": "number",
    "WORK_OF_ART": "name", "PRODUCT": "name", "EVENT": "name", "LANGUAGE": "name", "LAW": "name",
}  # fmt: skip
# the kinds a constituent may have (the answer model's features are per kind)
KINDS = ("person", "place", "org", "group", "date", "session_date", "number", "name", "np", "np_pp", "arg",
         "predicate", "quote", "sentence", "record")
ARG_DEPS = frozenset({"dobj", "attr", "oprd", "acomp", "pobj", "appos", "npadvmod", "xcomp", "dative",
                      "conj"})
_NOUN_MODIFIERS = frozenset({"compound", "amod", "det", "nummod", "poss", "nmod"})
MAX_ARG = 8  # tokens: a longer argument is a clause, offered as the predicate instead
MAX_PREDICATE = 14
_EDGE_POS = frozenset({"ADP", "CCONJ", "SCONJ", "PUNCT", "PART", "DET", "INTJ", "AUX", "PRON"})
_LEFT_DROP = frozenset({"nsubj", "nsubjpass", "expl", "aux", "auxpass", "intj", "mark", "cc", "punct",
                        "discourse", "advcl", "ccomp", "dep"})
_OBJECT_DEPS = frozenset({"dobj", "dative", "attr", "oprd"})
_QUOTE_RE = re.compile(r"[\"“]([^\"“”]{2,60})[\"”]")


@dataclass(frozen=True)
class Constituent:
    text: str
    kind: str
    start: int  # token offsets in the sentence's parse ([start, end)); -1 when not from a parse
    end: int
    head_dep: str = ""  # dependency label of the piece's head
    head_lemma: str = ""  # lemma of the word the piece hangs on (a verb, a preposition's head)
    proper: float = 0.0  # share of proper-noun tokens


def _trimmed(span: Span) -> tuple[int, int] | None:
    """The span's token range without edge words that cannot begin or end an answer."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and (doc[start].pos_ in _EDGE_POS or doc[start].is_punct):
        if doc[start].pos_ == "DET" and end - start > 1 and doc[start].lower_ not in ("a", "an", "the"):
            break  # "some glass", "two mugs": the determiner carries meaning
        start += 1
    while end > start and (doc[end - 1].pos_ in _EDGE_POS or doc[end - 1].is_punct):
        last = doc[end - 1]
        if last.text == "%":
            break  # "78% to 88%": the sign is part of the number
        if last.pos_ == "PRON" and last.dep_ in _OBJECT_DEPS and start <= last.head.i < end - 1:
            break  # "love it", "call her": the verb's object stays, or the clause is cut off
        end -= 1
    return (start, end) if end > start else None


def _make(doc: Doc, start: int, end: int, kind: str, head: Token | None) -> Constituent:
    span = doc[start:end]
    tokens = [t for t in span if not t.is_punct]
    proper = sum(t.pos_ == "PROPN" for t in tokens) / len(tokens) if tokens else 0.0
    return Constituent(
        text=span.text.strip(" ,;:-"),
        kind=kind,
        start=start,
        end=end,
        head_dep=head.dep_ if head is not None else "",
        head_lemma=head.head.lemma_.lower() if head is not None else "",
        proper=proper,
    )


def _with_pp(doc: Doc, chunk: Span) -> tuple[int, int] | None:
    """A noun phrase with its short prepositional tail ("a shelter in Lübeck")."""
    root = chunk.root
    for child in root.children:
        if child.dep_ == "prep" and child.i >= chunk.end:
            right = child.right_edge.i + 1
            if right - chunk.start <= MAX_ARG:
                return chunk.start, right
    return None


def _predicate(doc: Doc, verb: Token) -> tuple[int, int] | None:
    """The verb with what follows it, without its subject and what precedes it ("cut it on
    some glass at the park" of "She cut it on some glass at the park")."""
    dropped = {t.i for child in verb.children if child.i < verb.i and child.dep_ in _LEFT_DROP
               for t in child.subtree}
    kept = [t.i for t in verb.subtree if t.i not in dropped]
    if not kept:
        return None
    start, end = min(kept), max(kept) + 1
    if any(i in dropped for i in range(start, end)):
        start = verb.i
    if not 2 <= end - start <= MAX_PREDICATE:
        return None
    return _trimmed(doc[start:end])


def constituents(doc: Doc) -> list[Constituent]:
    """Every complete piece of the parsed sentence, de-duplicated by text (first kind wins)."""
    out: list[Constituent] = []
    for ent in doc.ents:
        kind = ENTITY_KINDS.get(ent.label_)
        if kind and ent.start > 0 and doc[ent.start - 1].is_currency:
            ent = doc[ent.start - 1 : ent.end]  # "€39.90": the parse often leaves the sign out
        if kind and (rng := _trimmed(ent)) is not None:
            out.append(_make(doc, *rng, kind, ent.root))
    for chunk in doc.noun_chunks:
        if chunk.root.pos_ == "PRON":
            continue
        if (rng := _trimmed(chunk)) is not None:
            out.append(_make(doc, *rng, "np", chunk.root))
        if (pp := _with_pp(doc, chunk)) is not None:
            span = doc[pp[0] : pp[1]]
            if (rng := _trimmed(span)) is not None:
                out.append(_make(doc, *rng, "np_pp", chunk.root))
    for tok in doc:
        hanging = tok.dep_ == "dep" and tok.pos_ in ("NOUN", "PROPN")
        verb = next((c for c in tok.children if c.i < tok.i and c.pos_ == "VERB"), None) if hanging else None
        if verb is not None:
            # a verb's object the parse left hanging, as talk often does ("Researching adoption
            # agencies — it's been a dream ..."): the noun with its own modifiers, as the object
            # of that verb ("Big news: ..." has no verb and is no piece)
            mods = [c for c in tok.children if verb.i < c.i < tok.i and c.dep_ in _NOUN_MODIFIERS
                    and c.pos_ != "VERB"]
            start = min((c.left_edge.i for c in mods), default=tok.i)
            if (rng := _trimmed(doc[start:tok.i + 1])) is not None:
                piece = _make(doc, *rng, "np", tok)
                out.append(replace(piece, head_dep="dobj", head_lemma=verb.lemma_.lower()))
        if tok.dep_ in ARG_DEPS and tok.pos_ not in ("PRON", "AUX"):
            span = doc[tok.left_edge.i : tok.right_edge.i + 1]
            if len(span) <= MAX_ARG and (rng := _trimmed(span)) is not None:
                out.append(_make(doc, *rng, "arg", tok))
        if (tok.pos_ in ("VERB", "AUX") and tok.dep_ in ("ROOT", "conj", "ccomp", "xcomp", "advcl")
                and (rng := _predicate(doc, tok)) is not None):
            out.append(_make(doc, *rng, "predicate", tok))
    for m in _QUOTE_RE.finditer(doc.text):
        inner = m.group(1).strip()
        if 0 < len(inner.split()) <= 8:
            out.append(Constituent(inner, "quote", -1, -1))
    seen: set[str] = set()
    unique = []
    for c in out:
        key = c.text.lower()
        if key and key not in seen:
            seen.add(key)
            unique.append(c)
    return unique
