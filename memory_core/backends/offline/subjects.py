"""Who a clause is about: speakers, pronouns, kin, names.

* "I/me/we" → the turn's speaker, "you" → the other speaker (the nearest turn by someone else);
* "my husband John" → John, "my kids" → "<speaker>'s kids";
* "he/she/they" → the latest compatible person mentioned at most three turns earlier in the
  episode (``register_mentions`` keeps the list);
* "it" → the last noun subject, else object, of the same turn;
* a subjectless "Love that painting!" is the speaker's (ellipsis).

Resolution (part of the confidence): 1.0 for I/you and names, 0.95 possessed nouns, 0.85
"we", 0.7 ellipsis, 0.8·0.9^d for he/she/they resolved d turns back, 0.6 for "it";
agreement 1.0 when spaCy NER agrees with the entity type (or does not apply), 0.9 for a
proper noun NER did not tag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core.backends.offline import clauses
from memory_core.backends.offline.aliases import speaker_alias
from memory_core.backends.offline.drafts import VAGUE_NOUNS, ExtractState, Mention, Subject
from memory_core.construct import lexicon
from memory_core.contracts import ConversationInfo
from memory_core.models import Turn

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

NER_TYPES = {"PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place",
             "ORG": "organization", "NORP": "group", "PRODUCT": "object", "WORK_OF_ART": "work",
             "EVENT": "event", "LANGUAGE": "concept"}
_NAMED = frozenset({"", "ORG", "PERSON"})  # what the small NER calls a pet's or a person's name
PERSON_PRON = {"he": False, "him": False, "his": False, "she": False, "her": False,
               "they": True, "them": True, "their": True}
PRON_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f"}
# the kin nouns that say whether someone is a woman or a man (English grammar, not names)
KIN_GENDER = {
    **dict.fromkeys(("mom", "mother", "mum", "mommy", "mama", "sister", "daughter", "wife", "girlfriend",
                     "aunt", "auntie", "grandma", "grandmother", "granny", "niece", "granddaughter",
                     "stepmom", "stepmother", "fiancee", "stepsister", "stepdaughter"), "f"),
    **dict.fromkeys(("dad", "father", "daddy", "papa", "brother", "son", "husband", "boyfriend", "uncle",
                     "grandpa", "grandfather", "nephew", "grandson", "stepdad", "stepfather", "fiance",
                     "stepbrother", "stepson"), "m"),
}


def other_speaker(turns: list[Turn], pos: int, info: ConversationInfo) -> str:
    me = turns[pos].speaker
    for j in (pos - 1, pos + 1, pos - 2, pos + 2):
        if 0 <= j < len(turns) and turns[j].speaker != me:
            return turns[j].speaker
    return next((s for s in info.speakers if s != me), me)


def register_mentions(state: ExtractState, sent: Span, speaker: str, other: str, pos: int) -> None:
    for ent in sent.ents:
        # a name someone is in or at ("lives in Tartu") is a place, whatever the small NER calls it
        name = _without_opening_verb(ent, state.info) if ent.label_ == "PERSON" else None
        if name and speaker_alias(name, state.info.speakers, state.aliases) is None \
                and not clauses.object_of(ent.root, clauses.WHERE_PREPS) and clauses.name_shaped(name):
            state.mentions.append(Mention(name, "person", False, pos,
                                          ent.root.dep_ in clauses.SUBJECT_DEPS, ent.start))
    for tok in sent:  # a named subject, whatever NER guessed ("Pepper is staring at me, she wants ...")
        if _named_subject(tok) and tok.ent_type_ in _NAMED \
                and speaker_alias(tok.text, state.info.speakers, state.aliases) is None \
                and not _instruction_word(tok, speaker, state.info):
            known = next((m for m in reversed(state.mentions) if m.name == tok.text), None)
            # a subject only when named before: a capitalised heading word parses as one too
            kind = known.type if known else clauses.name_kind(tok.text)
            state.mentions.append(Mention(tok.text, kind, False, pos,
                                          known is not None or tok.text in state.info.known_entities, tok.i))
    for tok in sent:
        if tok.lemma_.lower() in lexicon.KIN and tok.pos_ == "NOUN":
            owner = possessor(tok, speaker, other)
            if owner is not None:
                kin = lexicon.KIN[tok.lemma_.lower()]
                name = name_of(tok, state, owner) or f"{owner}'s {tok.lower_}"
                kind = "animal" if kin.value_type == "animal" else "person"
                subject = tok.dep_ in clauses.SUBJECT_DEPS
                state.mentions.append(Mention(name, kind, tok.tag_ == "NNS", pos, subject, tok.i,
                                              KIN_GENDER.get(tok.lemma_.lower())))


def possessor(tok: Token, speaker: str, other: str) -> str | None:
    for child in tok.children:
        if child.dep_ == "poss":
            low = child.lower_
            if low in ("my", "our"):
                return speaker
            if low == "your":
                return other
    return None


def name_of(tok: Token, state: ExtractState, owner: str) -> str | None:
    """A proper name given to a noun: "my husband John", "a dog named Oliver"; never the name of
    the noun's ``owner`` ("go cuddle your nephew, Auntie Maya!" addresses Maya, no nephew of
    her own)."""
    name = _given_name(tok) or _animal_named(tok, state)
    said_to = speaker_alias(name, state.info.speakers, state.aliases) if name is not None else None
    if said_to == owner or (said_to is not None and tok.dep_ == "appos" and tok.head.i < tok.i):
        return None  # "Yeah, Ben, my family's been great": Ben is addressed, not the family's name
    return name


# the names the small NER tags as places and rarely gets wrong (it calls many a first name FAC or ORG)
PLACE_ENTS = frozenset({"GPE", "LOC"})
# what only an animal does (by lemma): "sends a meow", "barked all night", "purring"
_ANIMAL_DOINGS = frozenset({"meow", "bark", "purr", "wag", "growl", "howl", "woof", "hiss", "neigh", "fetch",
                            "meows", "barks", "purrs", "wags"})


def _animal_named(tok: Token, state: ExtractState) -> str | None:
    """The name of "my cat" said in its turn: the one name (no speaker's, no place) that is the
    subject of another sentence saying what an animal does ("Biscuit sends a meow. My cat has
    been sleeping on my keyboard")."""
    if tok.tag_ != "NN" or tok.lemma_.lower() not in lexicon.ANIMAL_NOUNS:
        return None
    found = set()
    for t in tok.doc:
        if t.pos_ != "PROPN" or t.dep_ not in ("nsubj", "nsubjpass") or len(t.text) < 2 or t.sent == tok.sent:
            continue
        if not t.text[:1].isupper() or t.ent_type_ in PLACE_ENTS \
                or speaker_alias(t.text, state.info.speakers, state.aliases) is not None:
            continue
        if ({w.lower_ for w in t.sent} | {w.lemma_.lower() for w in t.sent}) & _ANIMAL_DOINGS:
            found.add(t.text)
    return found.pop() if len(found) == 1 else None


def _given_name(tok: Token) -> str | None:
    head = tok.head
    if tok.dep_ == "compound" and head.pos_ == "PROPN" and head.i > tok.i:  # "my manager Dirk (Brandt)"
        return _own_name(head)
    if tok.dep_ == "appos" and head.pos_ == "PROPN" and head.i < tok.i and not any(
            c.dep_ in ("appos", "conj") and c.i != tok.i for c in head.children):
        return _own_name(head)  # "Pixel, my guinea pig" ("Max, my brother, and Ida, ..." is a list)
    for child in tok.children:
        if child.dep_ in ("appos", "compound") and child.pos_ == "PROPN" and (child.dep_ == "appos"
                                                                           or child.i > tok.i):
            names = [child, *(c for c in child.children if c.dep_ == "conj" and c.pos_ == "PROPN")]
            if (tok.tag_ in ("NNS", "NNPS")) != (len(names) > 1):
                continue  # "my friends, Blauwhal, ...": one name is no name of several (a list goes on)
            return " and ".join(_own_name(n) for n in names)  # "my kids Jack and Lily"
        if child.dep_ == "acl" and child.lemma_ in ("name", "call"):
            for g in child.children:
                if g.dep_ in ("oprd", "attr", "dobj", "xcomp") and g.pos_ == "PROPN":
                    return g.text
    return _next_name(tok)


# no names: "my cat Ill miss her" ("I'll" typed without its apostrophe, which ``nlp.normalise_text``
# mends only where it opens a sentence) and the abbreviations "ID", "IM" it leaves alone
_BARE_I = frozenset({"id", "ill", "im"})


def _next_name(tok: Token) -> str | None:
    """The name written right after a singular noun, whatever the parse made of the pair ("to
    see my sister Lotte" can parse as "my sister" being the subject of "Lotte")."""
    doc = tok.doc
    if tok.tag_ != "NN" or tok.dep_ == "dative" or tok.i + 1 >= len(doc):
        return None  # "I showed my dad Netflix": the name is what was shown
    nxt = doc[tok.i + 1]
    if nxt.pos_ != "PROPN" or not nxt.text[:1].isupper() or nxt.ent_type_ not in ("", "PERSON") \
            or len(nxt.text) < 2 or nxt.lower_ in _BARE_I:
        return None
    end = nxt.i + 1
    while end < len(doc) and doc[end].pos_ == "PROPN" and doc[end].text[:1].isupper() and end - nxt.i < 3:
        end += 1
    return doc[nxt.i:end].text


def _own_name(tok: Token) -> str:
    """A name token with the proper nouns before it that it governs ("Mary Ann", "Uncle Tom")."""
    before = [t.text for t in tok.children if t.dep_ == "compound" and t.pos_ == "PROPN" and t.i < tok.i]
    return " ".join([*before, tok.text])


def _named_subject(tok: Token) -> bool:
    """A proper noun that is its clause's subject — also where the small parser, in a question
    ("Did Pepper swim?"), hangs it on the verb as a compound."""
    return tok.pos_ == "PROPN" and (tok.dep_ in ("nsubj", "nsubjpass") or (
        tok.dep_ == "compound" and tok.head.pos_ in ("VERB", "AUX")))


def resolve(state: ExtractState, tok: Token, speaker: str, other: str, pos: int) -> Subject | None:
    low = tok.lower_
    if low in ("i", "me", "myself"):
        return Subject(speaker, "person", 1.0)
    if low in ("we", "us", "ourselves") or (low == "'s" and tok.dep_ == "nsubj"):  # "let's"
        return Subject(speaker, "person", 0.85)
    if low in ("you", "yourself"):
        return Subject(other, "person", 1.0)
    if low in PERSON_PRON:
        plural = PERSON_PRON[low]
        # someone named after the pronoun in its own turn is not who it means ("he met my cousin Max")
        fits = [m for m in state.mentions
                if m.plural == plural and m.type in ("person", "animal") and 0 <= pos - m.turn <= 3
                and not (m.turn == pos and m.at > tok.i)]
        if not fits:
            return None
        # the latest turn that mentions someone who fits; in it, whoever was its subject
        # ("Rex is staying with my mom. ... She'll be spoiled": Rex), else the last one named —
        # never someone a kin noun says is of the other gender ("my mom visited. He fixed the
        # sink" is about nobody named; "my sister Lisa" is a "she")
        gender = PRON_GENDER.get(low)
        genders = {m.name: m.gender for m in state.mentions if m.gender}
        latest = [m for m in fits if m.turn == fits[-1].turn and genders.get(m.name, gender) == gender]
        if not latest:
            return None
        m = next((m for m in reversed(latest) if m.subject), latest[-1])
        return Subject(m.name, m.type, 0.8 * 0.9 ** (pos - m.turn))
    if tok.pos_ == "PRON" or tok.lower_ in ("this", "that", "these", "those", "it", "there"):
        return None
    if tok.lemma_.lower() in lexicon.KIN and tok.pos_ == "NOUN":
        owner = possessor(tok, speaker, other)
        if owner is not None:
            kin = lexicon.KIN[tok.lemma_.lower()]
            named = name_of(tok, state, owner)
            kind = "animal" if kin.value_type == "animal" else "person"
            return Subject(named or f"{owner}'s {tok.lower_}", kind, 0.95)
    group = clauses.group_pronoun(tok)
    if tok.pos_ == "NOUN" and group is not None:  # "you guys", "we two", "us girls": the speakers
        return Subject(other if group == "you" else speaker, "person", 0.85)
    if tok.pos_ == "PROPN" or tok.ent_type_ in NER_TYPES:  # "my last day" (DATE) is no name
        if tok.ent_type_ in ("DATE", "TIME"):
            return None  # "the meeting on June 20: ..." names a day, not someone
        span = _name_span(tok)
        name, words = span.text, span.text.split()
        # after markdown's scaffolding (a list marker, a label, a new line), a word the talk writes
        # in lower case and never capitalises inside a sentence is an instruction's verb or a
        # title's word: "- **Tools**: Use Kiln Planner to ...", "**Breathing**: Inhale slowly"
        # (an assistant's sentence opens with an instruction's verb as often: "Consistency is key")
        if clauses.opens_instruction(span, speaker, state.info.common_words):
            if all(w.lower() in state.info.common_words for w in words) \
                    or _a_word_left(words[1:], state.info.lower_words):
                return Subject(name, "concept", 0.9)  # no one: a thing at most
            name = " ".join(words[1:])  # the name after the verb
        alias = speaker_alias(name, state.info.speakers, state.aliases)
        if alias is not None:
            return Subject(alias, "person", 1.0)
        kind = NER_TYPES.get(tok.ent_type_, "")
        if not kind:  # untagged proper noun: a person mentioned before, else a capitalised word
            known = next((m for m in reversed(state.mentions) if m.name == name), None)
            kind = known.type if known else "concept" if tok.i == tok.sent.start else clauses.name_kind(name)
            return Subject(name, kind, 1.0, 0.9)
        # "AB", "GH_TOKEN", "GeoGebra" are no one's names, whatever the NER says
        return Subject(name, clauses.name_kind(name) if kind == "person" else kind, 1.0)
    if tok.pos_ == "NOUN":
        text = clauses.phrase(tok, max_words=5, name=True)
        if text and possessor(tok, speaker, other) == speaker:  # "my last day": the speaker's own
            text = f"{speaker}'s {text}"
        # one named by their work is a person ("my physio said ..."); a suffix is no sign ("my wrist");
        # several are a group ("my coworkers"), and a bare plural is a kind of people, no one in
        # particular ("Architects often use triangles")
        kind = "concept"
        if tok.lemma_.lower() in lexicon.OCCUPATIONS:
            if tok.tag_ not in ("NNS", "NNPS"):
                kind = "person"
            elif any(c.dep_ in ("poss", "det") for c in tok.children):
                kind = "group"
        return Subject(text or tok.text, kind, 0.9) if text else None
    return None


def subject_for(state: ExtractState, pred: Token, speaker: str, other: str, pos: int) -> Subject | None:
    subj = clauses.subject_of(pred)
    if subj is not None and clauses.in_title(subj, outside=pred) and all(
            w.lower().strip(":") in state.info.lower_words for w in _name_span(subj).text.split()):
        # "**Save and Test:** - Save the changes": a title's words, no one who saves (a name the
        # talk never writes in lower case still may be: "**Ines Nowak** will check the glaze")
        return None
    if subj is not None:
        if subj.lower_ in ("it", "this", "that") and pred.lemma_ == "be":
            attr = next((c for c in pred.children if c.dep_ == "attr"), None)
            if attr is not None and attr.lemma_.lower() in VAGUE_NOUNS:
                return None  # "it's a lot to take in"
            acomp = next((c for c in pred.children if c.dep_ == "acomp"), None)
            if attr is None and (acomp is None or acomp.lemma_.lower() in lexicon.EVALUATIVE):
                return None  # "it was awesome": an opinion of nothing in particular
            return _thing_before(pred)
        if subj.lower_ in ("it", "this", "that") and clauses.names_passively(pred):
            return _thing_before(pred)  # "We found a bakery. It's called Crumb Corner": the bakery
        return resolve(state, subj, speaker, other, pos)
    named = clauses.misread_name(pred)
    if named is not None:  # "Ledgerly announced layoffs": the name is the subject, not the speaker
        known = next((m for m in reversed(state.mentions) if m.name == named.text), None)
        return Subject(named.text, known.type if known else "concept", 0.8)
    if pred.i == pred.sent.start and clauses.is_past_form(pred) and pred.dep_ in ("ROOT", "advcl", "ccomp"):
        return Subject(speaker, "person", 0.7)  # "Lost my job yesterday, so ..."
    first = pred.sent[0]
    if pred.dep_ == "ROOT" and first.dep_ == "aux" and first.head.i == pred.i and first.lower_ in (
            "been", "got", "gotten", "had"):
        return Subject(speaker, "person", 0.7)  # "Been running longer since our last chat"
    root = pred
    while root.dep_ in ("conj", "xcomp") and root.head.i != root.i:
        root = root.head
    if root.dep_ != "ROOT":
        return None
    lemma = clauses.lemma(root)
    if lemma == "be":
        return None  # "Last night was amazing!" is not about the speaker
    if (lexicon.VERBS.get(lemma) in (lexicon.LIKES, lexicon.DISLIKES) or lemma in ("miss", "hope", "want")
            or root.tag_ in ("VBD", "VBN") or (lemma == "go" and root.tag_ == "VBG") or clauses.is_eager(root)
            or (root.i == root.sent.start and clauses.is_past_form(root))):
        return Subject(speaker, "person", 0.7)
    return None


def _instruction_word(tok: Token, speaker: str, info: ConversationInfo) -> bool:
    """A capitalised word the talk writes in lower case, opening an instruction or standing in a
    title: "- **Break It Down**: Propose breaking the review ..." names no one a later "her" means."""
    return clauses.opens_instruction(tok.doc[tok.i:tok.i + 1], speaker, info.common_words) or (
        clauses.in_title(tok) and tok.lower_ in info.lower_words)


def _a_word_left(rest: list[str], lower: frozenset[str]) -> bool:
    """What is left of a title once its first word is dropped is one word the talk also writes
    in lower case ("**Personal Items**" leaves "Items", said as "your personal items"): a
    title's word, no name ("Send Carla a note" leaves Carla, never written "carla")."""
    return len(rest) == 1 and rest[0].lower().removesuffix("'s").removesuffix("’s") in lower


def _without_opening_verb(ent: Span, info: ConversationInfo) -> str | None:
    """The name in a named entity without the verb the small NER glued to it ("Send Carla a
    note", "Giving Michael early access" name Carla and Michael): a first word tagged as a verb,
    or, opening a sentence or a list item, a word the talk writes in lower case; None when
    every word is such a word, or, after markdown's scaffolding, what is left is a word too
    (``_a_word_left``: a chat that writes "jon" in lower case still names Jon in "Tell Jon")."""
    common = info.common_words
    words = ent.text.strip().split()
    markup = clauses.after_markup(ent)
    opens = ent.start == ent.sent.start or markup
    if not words or not (ent[0].tag_.startswith("VB") or (opens and words[0].lower() in common)):
        return ent.text.strip() or None
    rest = words[1:]
    if not rest or all(w.lower() in common for w in rest) \
            or (markup and _a_word_left(rest, info.lower_words)):
        return None
    name = " ".join(rest)
    return name[:-2] if name.endswith(("'s", "’s")) else name


def _name_span(tok: Token) -> Span:
    """The name a proper noun is part of: the unbroken run of its subtree's name words around it
    ("Matt Patterson", "East Ridge Library"). Name words the run does not reach are another
    name ("Ines or Bartek" is two people) or sit across markup or a line ("**Plan**: Ines")."""
    doc = tok.doc
    named = {t.i for t in tok.subtree if t.pos_ == "PROPN" or t.dep_ in ("compound", "flat")}
    named |= {t.i for t in tok.subtree if t.text == "-" and not t.whitespace_
              and t.i > 0 and not doc[t.i - 1].whitespace_}  # "Jean-Luc"
    named.add(tok.i)
    start = end = tok.i
    while start - 1 in named:
        start -= 1
    while end + 1 in named:
        end += 1
    return doc[start:end + 1]


def _thing_before(pred: Token) -> Subject | None:
    """What "it" before ``pred`` refers to (``last_object``), as a subject."""
    obj = last_object(pred)
    return Subject(obj, "concept", 0.6) if obj else None


def last_object(pred: Token) -> str | None:
    """What "it" refers to: the latest noun subject before ``pred`` in the same turn, else the
    latest direct object ("I painted that lake sunrise last year! It's special to me")."""
    earlier = list(pred.doc[:pred.i])
    for deps in (("nsubj", "nsubjpass"), ("dobj", "attr")):
        for tok in reversed(earlier):
            if (tok.pos_ in ("NOUN", "PROPN") and tok.dep_ in deps and tok.lemma_.lower() not in VAGUE_NOUNS
                    and not clauses.is_vocative(tok)):
                return clauses.phrase(tok, max_words=5) or None
    return None


def conjunct_subjects(state: ExtractState, pred: Token, first: Subject, speaker: str, other: str,
                       pos: int) -> list[Subject]:
    """"My husband and I drove to Boston": one record per person in the subject."""
    subj = clauses.subject_of(pred)
    if subj is None:
        return []
    out: list[Subject] = []
    for conj in subj.conjuncts:
        who = resolve(state, conj, speaker, other, pos)
        if who is not None and who.name != first.name and all(o.name != who.name for o in out):
            out.append(who)
    return out
