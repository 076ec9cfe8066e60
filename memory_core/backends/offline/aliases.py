"""What names name: the names speakers go by, and what a name was introduced as.

**Speaker aliases.** Real chats show a speaker under one name (an account's display name)
while the text, and whoever asks about them later, uses another: a nickname, a first name for
a full display name, another spelling. Two signals in the dialogue itself say which:

* a **self-introduction** — "I'm Kat", "my name is Kat", "call me Kat", "Kat here" — names
  the turn's speaker;
* an **address** — "Thanks, Kat!", "Hey Kat" (a vocative, ``clauses.is_vocative``) — names the
  other speaker (the nearest turn by someone else); without a greeting before it, only a name
  NER tags PERSON counts, and only when it is addressed in two turns ("Teun, the new job, ..."
  opens a list, it greets nobody).

A name its supposed owner talks about in the episode is not theirs (nobody speaks of
themselves by name), and a name given to both speakers is nobody's alias.

``find_aliases(docs, speakers_of_turns, others, speakers)`` lists (turn, speaker, alias) for
names that are proper nouns (spaCy: PROPN, tagged PERSON, ORG — the small NER's guess for an
unfamiliar first name — or untagged, never a place), are not the display name itself or a
prefix of it (those resolve already: ``speaker_alias``), and name no other speaker. Each gives
a ``goes_by`` record (the speaker goes by the alias, citing the turn), which the entity
canonicalisation merges into the speaker (reason ``speaker alias``), and clauses whose subject
is the alias resolve to the speaker.

**Kinds.** ``named_kinds(sent, turn)``: a name introduced by a common noun — "a studio called
Kleiwerk", "Haus Tilde, the city library", "the teacher, Anneke" — gives ``<name> is_a <noun>``
(typed a place when the phrase is where something happens, "at a studio called ...", else an
organisation) or ``<name> occupation <noun>`` for a person noun. The canonicalisation takes
the type of such a record over the mentions' vote (the small NER calls unfamiliar names
PERSON or ORG at random).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memory_core.backends.offline import clauses
from memory_core.backends.offline.drafts import Draft, conf
from memory_core.construct import lexicon
from memory_core.models import Turn

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

_PRESENT_BE = frozenset({"am", "'m", "m", "is", "'s"})  # "I'm Kat", "my name is Kat" (not "I was ...")
_GREETINGS = frozenset({"hey", "hi", "hello", "thanks", "thank", "morning", "night", "evening", "bye",
                        "dear", "congrats", "congratulations", "yo", "sorry", "welcome", "cheers"})
_NOT_ADDRESSED = frozenset({"appos", "nsubj", "nsubjpass", "dobj", "pobj", "compound", "poss", "attr"})
_NAME_ENTS = frozenset({"PERSON", "ORG", ""})  # the small NER tags unfamiliar first names ORG too


def speaker_alias(text: str, speakers: Sequence[str], aliases: Mapping[str, str] | None = None) -> str | None:
    """The speaker ``text`` names: a display name, a prefix of one ("Mel", "Katherine" for
    "Katherine Miller"), or an alias found in the dialogue, with or without a title before it
    ("Auntie Mel")."""
    low = " ".join(text.lower().split())
    first, _, rest = low.partition(" ")
    if rest and first.rstrip(".") in lexicon.TITLES:
        low = rest  # "Auntie Maya", "Dr. Ben": the titled speaker
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
    if any(clauses.is_noise_word(t.text) or (t.text.isupper() and len(t.text) > 3) for t in words):
        return None  # "Hahaha!", "Congrats!", "NOOO", "ALLERGIC": no name
    return " ".join(t.text for t in words)


def _introduced(tok: Token) -> bool:
    """"I'm Kat" / "my name is Kat" / "call me Kat" / "Kat here": the speaker names herself."""
    head = tok.head
    if clauses.is_negated(head) or any(c.dep_ == "det" for c in tok.children):
        return False  # "I'm not Kat", "I'm a Subway (worker)": no name of mine
    if tok.dep_ in ("attr", "acomp", "nsubj") and head.lemma_ == "be" and head.lower_ in _PRESENT_BE:
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
    certain: set[str] = set()  # introduced, or addressed after a greeting; else seen in two turns
    for pos, doc in enumerate(docs):
        me, other = speakers_of_turns[pos], others[pos]
        for tok in doc:
            name = _name(tok)
            if name is None:
                continue
            if _introduced(tok):
                who, sure = me, True
            elif _addressed(tok) and other != me:
                who, sure = other, _greeted(tok)
            else:
                continue
            if speaker_alias(name, speakers) is not None:
                continue  # the display name (or its prefix): nothing new
            found.append((pos, who, name))
            if sure:
                certain.add(name.lower())
    # nobody talks of themselves by name: a name its supposed owner says of someone else in
    # these turns ("Teun is perfect") is not theirs; a name given to both speakers is no alias
    owners: dict[str, set[str]] = {}
    for _, who, name in found:
        owners.setdefault(name.lower(), set()).add(who)
    said_by: dict[str, set[str]] = {}
    for pos, doc in enumerate(docs):
        for tok in doc:
            if tok.pos_ == "PROPN" and not _addressed(tok) and not _introduced(tok):
                said_by.setdefault(tok.lower_, set()).add(speakers_of_turns[pos])
    turns_of: dict[str, set[int]] = {}
    for pos, _, name in found:
        turns_of.setdefault(name.lower(), set()).add(pos)
    return [(pos, who, name) for pos, who, name in found
            if len(owners[name.lower()]) == 1 and who not in said_by.get(name.split()[0].lower(), set())
            and (name.lower() in certain or len(turns_of[name.lower()]) >= 2)]


def _addressed(tok: Token) -> bool:
    """A vocative the parser is sure of: after a greeting or thanks ("Hey Kat", "Thanks, Kat!"),
    or a name NER tags PERSON set off at the start or end of a sentence ("Kat, guess what")."""
    if not clauses.is_vocative(tok) or tok.dep_ in _NOT_ADDRESSED:
        return False
    return _greeted(tok) or tok.ent_type_ == "PERSON"


def _greeted(tok: Token) -> bool:
    """The name follows a greeting or thanks: "Hey Kat", "Thanks, Kat"."""
    before = tok.doc[tok.i - 1] if tok.i > 0 else None
    if before is not None and before.text == "," and tok.i > 1:
        before = tok.doc[tok.i - 2]
    return before is not None and (before.pos_ == "INTJ" or before.lower_ in _GREETINGS)


_FINITE = frozenset({"VBD", "VBN", "VBZ", "VBP"})


def _relative_subject(name: Token, noun: Token) -> bool:
    """"Use the checklist Carla provided": a name the parse hangs on a noun as its apposition
    but followed by a verb of its own that has no subject and that the noun is not the subject
    of is the subject of a relative clause left without "that" -- the checklist is what Carla
    provided, not what Carla is. ("My friend Anna said hi": "said" is the noun's own verb.)"""
    nxt = name.doc[name.i + 1] if name.i + 1 < len(name.doc) else None
    return nxt is not None and nxt.pos_ in ("VERB", "AUX") and nxt.tag_ in _FINITE \
        and nxt.i != noun.head.i and not any(c.dep_ in ("nsubj", "nsubjpass") for c in nxt.children)


def _closing_address(tok: Token) -> bool:
    """"..., Jon." / "..., Jon!": a name set off at the end of its sentence is addressed."""
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return clauses.is_vocative(tok) and (nxt is None or nxt.text in (".", "!", "?"))


_NAMED_DEPS = frozenset({"oprd", "attr", "dobj", "xcomp"})
_LOCATIVE = clauses.WHERE_PREPS | {"to", "from", "into"}  # where a thing is, or one goes to / comes from


def named_kinds(sent: Span, turn: Turn, speakers: Sequence[str] = (),
                common: frozenset[str] = frozenset(), lower: frozenset[str] = frozenset()) -> list[Draft]:
    """A name introduced by a common noun says what it names: "a little studio called Kleiwerk"
    (``Kleiwerk is_a studio``, a place: it is somewhere one goes to), "Museum X, the city
    museum", "the teacher, Anneke" (``Anneke occupation teacher``). Kin and pets have their
    own relations (``extract._possessions``). A day names nothing ("**May 3**: the first
    draft"), nor does an instruction's verb or a title's word the parse took for a name before
    its object ("**Action**: Detail the steps you took"; ``common``: the words the talk
    writes in lower case, ``clauses.opens_instruction``), nor a one-word label after markup
    the talk also writes in lower case ("- Shortfall: $583"; ``lower``), nor a title's words
    the talk also writes in lower case before what follows it ("**Critical Analysis**\n- the
    major studies") or in an aside ("Phase 2 (Pacing and Tone)")."""
    out: list[Draft] = []
    for noun in sent:
        lemma = noun.lemma_.lower()
        if noun.pos_ != "NOUN" or lemma in lexicon.WORD_NOUNS or lemma in lexicon.EVALUATIVE or (
                lemma in lexicon.KIN and (lemma not in lexicon.ANIMAL_NOUNS or _owned_and_named(noun))):
            continue  # "the word Candy" names a word; "my dog Rex" is a ``pet`` (``_possessions``)
        name_tok = next((g for c in noun.children if c.dep_ == "acl" and c.lemma_ in ("call", "name")
                         for g in c.children if g.dep_ in _NAMED_DEPS and g.pos_ == "PROPN"), None)
        if name_tok is None and not _determined(noun):
            continue  # "Atlas Stone, bad" / "Loll, cute": a bare word set off is no kind of thing
        if name_tok is None:
            name_tok = next((c for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN"
                             and not _relative_subject(c, noun)), None)
        head = noun.head
        end = max(t.i for t in noun.subtree) + 1
        after = noun.doc[end + 1] if end + 1 < len(noun.doc) else None  # the word after a comma
        listed = (end < len(noun.doc) and noun.doc[end].text == "," and after is not None
                  and after.pos_ not in ("VERB", "AUX")) \
            or any(c.dep_ == "conj" for c in noun.children) \
            or sum(c.dep_ in ("appos", "conj") for c in head.children) > 1  # "Rex, my dog, hates" is none
        if name_tok is None and noun.dep_ == "appos" and head.pos_ == "PROPN" and not listed:
            name_tok = head  # "Oscar, my guinea pig." ("Marek, the new job, the choir, ..." is a list)
        if name_tok is None or _closing_address(name_tok) or speaker_alias(name_tok.text, speakers) \
                or clauses.is_noise_word(name_tok.text):
            continue  # "... a tough job, Jon.": an address, not what the job is called; "Hahaha a ..."
        inside = {t.i for t in noun.subtree} if noun.head.i == name_tok.i else set()
        said: list[Token] = []
        for t in name_tok.subtree:  # the name's own words: not the noun's phrase, up to a comma
            if t.i in inside or (t.is_punct and t.i > name_tok.i):
                if t.i > name_tok.i:
                    break
                continue
            said.append(t)
        while said and said[0].pos_ != "PROPN":
            said = said[1:]  # "And yes, I do - Pixel, my guinea pig": the name starts at a name
        first = said[0] if said else name_tok
        label = first.doc[first.i:first.i + 1]
        if any(t.ent_type_ in ("DATE", "TIME") for t in said) \
                or clauses.opens_instruction(label, turn.speaker, common) \
                or (len(said) == 1 and first.lower_ in lower and clauses.after_markup(label)) \
                or ((clauses.in_title(first, outside=noun) or clauses.in_parentheses(first))
                    and all(t.lower_ in lower for t in said)):
            continue
        name = " ".join(t.text for t in said[:5]) or name_tok.text
        kind = clauses.kind(noun)
        if lemma in lexicon.OCCUPATIONS:
            out.append(Draft(name, "person", lexicon.OCCUPATION.name, kind, turn, conf("pattern", 1.0)))
            continue
        head = noun if noun.dep_ != "appos" else noun.head
        where = clauses.object_of(head, _LOCATIVE)
        what = "animal" if lemma in lexicon.ANIMAL_NOUNS or noun.lower_ in lexicon.ANIMAL_NOUNS else \
            "person" if lemma in lexicon.PERSON_NOUNS else "place" if where else "organization"
        out.append(Draft(name, what, "is_a", kind, turn, conf("pattern", 1.0)))
    return out


def _owned_and_named(noun: Token) -> bool:
    """"my dog Rex", "our cat named Mochi": an owned noun with its name (the owner's relation
    record and the name's species come from ``extract._possessions``)."""
    return any(c.dep_ == "poss" for c in noun.children) and any(
        (c.dep_ in ("appos", "compound") and c.pos_ == "PROPN")
        or (c.dep_ == "acl" and c.lemma_ in ("call", "name")) for c in noun.children)


def _determined(noun: Token) -> bool:
    """A noun phrase that names a kind: it has a determiner, an owner or a modifier ("the city
    museum", "my guinea pig", "a little studio"), not a bare word set off by commas."""
    return any(c.dep_ in ("det", "poss", "amod", "compound", "nummod") for c in noun.children)
