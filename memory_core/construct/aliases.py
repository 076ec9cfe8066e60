"""The names speakers go by when that differs from their display name.

Real chats show a speaker under one name (an account's display name) while the text, and
whoever asks about them later, uses another: a nickname, a first name for a full display name,
another spelling. Two signals in the dialogue itself say which:

* a **self-introduction** — "I'm Kat", "my name is Kat", "call me Kat", "Kat here" — names
  the turn's speaker;
* an **address** — "Thanks, Kat!", "Hey Kat" (a vocative, ``clauses.is_vocative``) — names the
  other speaker (the nearest turn by someone else).

``find_aliases(docs, speakers_of_turns, others)`` returns ``{alias (lower case): speaker}`` for
names that are proper nouns (spaCy: PROPN, tagged PERSON or untagged — never a place or an
organisation), are not the display name itself or a prefix of it (those resolve already:
``speaker_alias``), and name no other speaker. Each gives a ``goes_by`` record (the speaker goes
by the alias, citing the turn), which the entity canonicalisation merges into the speaker
(reason ``speaker alias``), and clauses whose subject is the alias resolve to the speaker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memory_core.construct import clauses

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_NAME_ENTS = frozenset({"PERSON", "ORG", ""})  # the small NER tags unfamiliar first names ORG too


def speaker_alias(text: str, speakers: Sequence[str], aliases: Mapping[str, str] | None = None) -> str | None:
    """The speaker ``text`` names: a display name, a prefix of one ("Mel", "Katherine" for
    "Katherine Miller"), or an alias found in the dialogue."""
    low = " ".join(text.lower().split())
    for s in speakers:
        if low == s.lower() or (len(low) >= 3 and s.lower().startswith(low)):
            return s
    if aliases:
        return aliases.get(low)
    return None


def _name(tok: Token) -> str | None:
    """The proper name headed by ``tok`` ("Kat", "Mary Ann"), or None when it is no person name."""
    if tok.pos_ != "PROPN" or tok.ent_type_ not in _NAME_ENTS:
        return None
    words = [t for t in tok.subtree if (t.pos_ == "PROPN" and t.dep_ in ("compound", "flat")) or t.i == tok.i]
    if not 1 <= len(words) <= 2 or not all(t.text.isalpha() and t.text[:1].isupper() for t in words):
        return None
    if any(clauses.is_noise_word(t.text) for t in words):
        return None  # "Hahaha!", "Congrats!", "NOOO": no name
    return " ".join(t.text for t in words)


def _introduced(tok: Token) -> bool:
    """"I'm Kat" / "my name is Kat" / "call me Kat" / "Kat here": the speaker names herself."""
    head = tok.head
    if clauses.is_negated(head):
        return False
    if tok.dep_ in ("attr", "acomp", "nsubj") and head.lemma_ == "be":
        subj = next((c for c in head.children if c.dep_ == "nsubj" and c.i != tok.i), None)
        if subj is None:
            return False
        if subj.lower_ == "i":
            return tok.dep_ in ("attr", "acomp")
        return subj.lemma_.lower() == "name" and any(c.lower_ == "my" for c in subj.children)
    if tok.dep_ in ("oprd", "xcomp", "dobj", "attr", "npadvmod") and head.lemma_ == "call":
        return any(c.lower_ == "me" for c in head.children if c.dep_ in ("dobj", "nsubj"))
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return tok.i == tok.sent.start and nxt is not None and nxt.lower_ == "here" and (
        nxt.i + 1 >= len(tok.doc) or tok.doc[nxt.i + 1].is_punct)


def find_aliases(docs: Sequence[Doc], speakers_of_turns: Sequence[str], others: Sequence[str],
                 speakers: Sequence[str]) -> list[tuple[int, str, str]]:
    """(turn position, speaker, alias) for every self-introduction and address in the turns."""
    found: list[tuple[int, str, str]] = []
    for pos, doc in enumerate(docs):
        me, other = speakers_of_turns[pos], others[pos]
        for tok in doc:
            name = _name(tok)
            if name is None:
                continue
            if _introduced(tok):
                who = me
            elif clauses.is_vocative(tok) and other != me:
                who = other
            else:
                continue
            named = speaker_alias(name, speakers)
            if named is not None:
                continue  # the display name (or its prefix): nothing new
            found.append((pos, who, name))
    return found
