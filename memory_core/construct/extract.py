"""Offline record and event-frame extraction for one episode (spaCy + rules).

For every statement sentence of every turn (questions assert nothing and are skipped), each
clause gives at most a few records ⟨entity, type, property, value, condition, modality,
valid_time, evidence, confidence, speaker⟩:

* **who** — the clause subject: "I/me/we" → the turn's speaker, "you" → the other speaker,
  "my husband John" → John, "my kids" → "<speaker>'s kids", "he/she/they" → the latest
  compatible person mentioned earlier in the episode, "it" → the last object of the same
  turn; a subjectless "Love that painting!" is the speaker's (ellipsis);
* **what** — the property from ``lexicon`` (phrases first, then verbs, copula patterns,
  possessed nouns), else the verb's own lemma; the value is the object phrase;
* **how** — modality from governing verbs and auxiliaries (want → desired, plan/going to/will
  → planned, would/could → hypothetical, not/never → negated), "if" clauses as conditions;
* **when** — DATE/TIME spans of the clause normalised against the session date (``timex``).

Image captions give a ``shares_image`` record citing their own turn. A turn with content but
no record from the rules gets one fallback record (its main verb lemma, or ``talks_about``
its key noun phrase) so that nearly every informative turn is addressable.

**Confidence** = specificity × resolution × agreement, clamped to [0.05, 0.99]:
specificity 0.9 (phrase rule), 0.8 (lexicon verb), 0.75 (copula / possessive / have pattern),
0.7 (image caption), 0.55 (verb-lemma fallback), 0.45 (topic fallback); resolution 1.0 for
I/you and names, 0.95 possessed nouns, 0.85 "we", 0.7 ellipsis, 0.8·0.9^d for he/she/they
resolved d turns back, 0.6 for "it"; agreement 1.0 when spaCy NER agrees with the entity
type (or does not apply), 0.9 for a proper noun NER did not tag.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from memory_core.contracts import ConversationInfo, Extraction
from memory_core.construct import clauses, lexicon, timex
from memory_core.construct.lexicon import Prop
from memory_core.models import Episode, EventFrame, Modality, Record, Turn

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

NER_TYPES = {"PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place",
             "ORG": "organization", "NORP": "group", "PRODUCT": "object", "WORK_OF_ART": "work",
             "EVENT": "event", "LANGUAGE": "concept"}
SPECIFICITY = {"phrase": 0.9, "lexicon": 0.8, "pattern": 0.75, "caption": 0.7, "fallback": 0.55,
               "topic": 0.45}
_TRIVIAL_VERBS = frozenset({
    "be", "do", "get", "have", "say", "tell", "know", "mean", "guess", "see", "look", "sound",
    "seem", "let", "thank", "hear", "glad", "bet", "wonder", "ask", "happen", "go", "come",
    "keep", "put", "bring", "show", "sure", "hope", "can", "will", "would", "gon", "wanna",
    "agree", "imagine", "appreciate", "congratulate", "take", "reach", "check",
})
_SYMMETRIC = frozenset({"spouse", "partner", "sibling", "friend", "colleague", "meets", "relative"})
_INVERSE = {"child": "parent", "parent": "child"}
_AHEAD = frozenset({"looks_forward_to", "plans"})
_PERSON_PRON = {"he": False, "him": False, "his": False, "she": False, "her": False,
                "they": True, "them": True, "their": True}


@dataclass
class Subject:
    name: str
    type: str
    resolution: float
    agreement: float = 1.0


@dataclass
class Mention:
    name: str
    type: str
    plural: bool
    turn: int


@dataclass
class Draft:
    entity: str
    entity_type: str
    prop: str
    value: str
    turn: Turn
    confidence: float
    modality: Modality = Modality.OBSERVED
    condition: str | None = None
    time: timex.TimeValue | None = None
    pred: Token | None = None
    event: bool = False


@dataclass
class _State:
    episode: Episode
    info: ConversationInfo
    drafts: list[Draft] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def extract_episode(episode: Episode, turns: list[Turn], docs: list[Doc],
                    info: ConversationInfo) -> Extraction:
    """Records and event frames of one episode; ``docs`` are the parsed (normalised) turn texts."""
    state = _State(episode, info)
    for pos, (turn, doc) in enumerate(zip(turns, docs, strict=True)):
        speaker, other = turn.speaker, _other_speaker(turns, pos, info)
        before = len(state.drafts)
        carried: list[Span] = []  # "Last night was amazing! We celebrated ...": the time carries on
        for sent in doc.sents:
            _register_mentions(state, sent, speaker, other, pos)
            if clauses.is_question(sent):
                continue
            _possessions(state, sent, turn, speaker, other)
            for pred in clauses.clause_heads(sent):
                _clause(state, pred, turn, pos, speaker, other)
            carried = _attach_times(state, sent, turn, before, carried)
        if turn.image_caption:
            caption = _clean_caption(turn.image_caption)
            if caption:
                state.drafts.append(Draft(speaker, "person", "shares_image", caption, turn,
                                          _conf("caption", 1.0)))
        if len(state.drafts) == before:
            _fallback(state, doc, turn, speaker, other, pos)
    return _finish(state, turns)


# --------------------------------------------------------------------------- speakers, mentions
def _other_speaker(turns: list[Turn], pos: int, info: ConversationInfo) -> str:
    me = turns[pos].speaker
    for j in (pos - 1, pos + 1, pos - 2, pos + 2):
        if 0 <= j < len(turns) and turns[j].speaker != me:
            return turns[j].speaker
    return next((s for s in info.speakers if s != me), me)


def _speaker_alias(text: str, speakers: tuple[str, ...]) -> str | None:
    low = text.lower()
    for s in speakers:
        if low == s.lower() or (len(low) >= 3 and s.lower().startswith(low)):
            return s
    return None


def _register_mentions(state: _State, sent: Span, speaker: str, other: str, pos: int) -> None:
    for ent in sent.ents:
        if ent.label_ == "PERSON" and _speaker_alias(ent.text, state.info.speakers) is None:
            state.mentions.append(Mention(ent.text.strip(), "person", False, pos))
    for tok in sent:
        if tok.lemma_.lower() in lexicon.KIN and tok.pos_ == "NOUN":
            owner = _possessor(tok, speaker, other)
            if owner is not None:
                kin = lexicon.KIN[tok.lemma_.lower()]
                name = _name_of(tok) or f"{owner}'s {tok.lower_}"
                kind = "animal" if kin.value_type == "animal" else "person"
                state.mentions.append(Mention(name, kind, tok.tag_ == "NNS", pos))


def _possessor(tok: Token, speaker: str, other: str) -> str | None:
    for child in tok.children:
        if child.dep_ == "poss":
            low = child.lower_
            if low in ("my", "our"):
                return speaker
            if low == "your":
                return other
    return None


def _name_of(tok: Token) -> str | None:
    """A proper name given to a noun: "my husband John", "a dog named Oliver"."""
    for child in tok.children:
        if child.dep_ in ("appos", "compound") and child.pos_ == "PROPN" and (child.dep_ == "appos"
                                                                           or child.i > tok.i):
            return " ".join(t.text for t in child.subtree if t.pos_ == "PROPN") or child.text
        if child.dep_ == "acl" and child.lemma_ in ("name", "call"):
            for g in child.children:
                if g.dep_ in ("oprd", "attr", "dobj", "xcomp") and g.pos_ == "PROPN":
                    return g.text
    return None


def _resolve(state: _State, tok: Token, speaker: str, other: str, pos: int) -> Subject | None:
    low = tok.lower_
    if low in ("i", "me", "myself"):
        return Subject(speaker, "person", 1.0)
    if low in ("we", "us", "ourselves") or (low == "'s" and tok.dep_ == "nsubj"):  # "let's"
        return Subject(speaker, "person", 0.85)
    if low in ("you", "yourself"):
        return Subject(other, "person", 1.0)
    if low in _PERSON_PRON:
        plural = _PERSON_PRON[low]
        for m in reversed(state.mentions):
            if m.plural == plural and m.type in ("person", "animal") and pos - m.turn <= 3:
                return Subject(m.name, m.type, 0.8 * 0.9 ** (pos - m.turn))
        return None
    if tok.pos_ == "PRON" or tok.lower_ in ("this", "that", "these", "those", "it", "there"):
        return None
    if tok.lemma_.lower() in lexicon.KIN and tok.pos_ == "NOUN":
        owner = _possessor(tok, speaker, other)
        if owner is not None:
            kin = lexicon.KIN[tok.lemma_.lower()]
            named = _name_of(tok)
            kind = "animal" if kin.value_type == "animal" else "person"
            return Subject(named or f"{owner}'s {tok.lower_}", kind, 0.95)
    if tok.pos_ == "PROPN" or tok.ent_type_:
        name = " ".join(t.text for t in tok.subtree if t.pos_ == "PROPN" or t.dep_ in ("compound", "flat")
                        ) or tok.text
        alias = _speaker_alias(name, state.info.speakers)
        if alias is not None:
            return Subject(name, "person", 1.0)
        kind = NER_TYPES.get(tok.ent_type_, "")
        if not kind:  # untagged proper noun: a person mentioned before, else a capitalised word
            known = next((m for m in reversed(state.mentions) if m.name == name), None)
            kind = known.type if known else ("concept" if tok.i == tok.sent.start else "person")
            return Subject(name, kind, 1.0, 0.9)
        return Subject(name, kind, 1.0)
    if tok.pos_ == "NOUN":
        text = clauses.phrase(tok, max_words=5, name=True)
        return Subject(text or tok.text, "concept", 0.9) if text else None
    return None


# --------------------------------------------------------------------------- clause rules
def _conf(rule: str, resolution: float, agreement: float = 1.0) -> float:
    return round(min(0.99, max(0.05, SPECIFICITY[rule] * resolution * agreement)), 2)


def _subject_for(state: _State, pred: Token, speaker: str, other: str, pos: int) -> Subject | None:
    subj = clauses.subject_of(pred)
    if subj is not None:
        if subj.lower_ in ("it", "this", "that") and pred.lemma_ == "be":
            attr = next((c for c in pred.children if c.dep_ == "attr"), None)
            if attr is not None and attr.lemma_.lower() in _VAGUE_NOUNS:
                return None  # "it's a lot to take in"
            acomp = next((c for c in pred.children if c.dep_ == "acomp"), None)
            if attr is None and (acomp is None or acomp.lemma_.lower() in lexicon.EVALUATIVE):
                return None  # "it was awesome": an opinion of nothing in particular
            obj = _last_object(pred)
            return Subject(obj, "concept", 0.6) if obj else None
        return _resolve(state, subj, speaker, other, pos)
    if pred.i == pred.sent.start and clauses.is_past_form(pred) and pred.dep_ in ("ROOT", "advcl", "ccomp"):
        return Subject(speaker, "person", 0.7)  # "Lost my job yesterday, so ..."
    root = pred
    while root.dep_ in ("conj", "xcomp") and root.head.i != root.i:
        root = root.head
    if root.dep_ != "ROOT":
        return None
    lemma = clauses.lemma(root)
    if lemma == "be":
        return None  # "Last night was amazing!" is not about the speaker
    if (lexicon.VERBS.get(lemma) in (lexicon.LIKES, lexicon.DISLIKES) or lemma in ("miss", "hope", "want")
            or root.tag_ in ("VBD", "VBN") or (lemma == "go" and root.tag_ == "VBG")
            or (root.i == root.sent.start and clauses.is_past_form(root))):
        return Subject(speaker, "person", 0.7)
    return None


def _last_object(pred: Token) -> str | None:
    """What "it" refers to: the latest noun subject before ``pred`` in the same turn, else the
    latest direct object ("I painted that lake sunrise last year! It's special to me")."""
    earlier = list(pred.doc[:pred.i])
    for deps in (("nsubj", "nsubjpass"), ("dobj", "attr")):
        for tok in reversed(earlier):
            if (tok.pos_ in ("NOUN", "PROPN") and tok.dep_ in deps and tok.lemma_.lower() not in _VAGUE_NOUNS
                    and not clauses.is_vocative(tok)):
                return clauses.phrase(tok, max_words=5) or None
    return None


_VAGUE_NOUNS = frozenset({"thing", "lot", "time", "way", "stuff", "one", "bit", "something", "anything",
                          "everything", "nothing", "kind", "sort", "part", "deal", "idea"})
_PRONOUN_VALUES = frozenset({"it", "that", "this", "them", "him", "her", "me", "you", "us", "those",
                             "these", "one", "myself", "yourself", "themselves", "itself", "ourselves",
                             "there", "what", "something", "anything", "everything", "some", "lot"})


def _clause(state: _State, pred: Token, turn: Turn, pos: int, speaker: str, other: str) -> None:
    lemma = clauses.lemma(pred)
    xcomp = next((c for c in pred.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)
    governs = xcomp is not None and (
        lemma in lexicon.DESIRE_VERBS | lexicon.PLAN_VERBS
        or lemma in ("start", "begin", "continue", "try", "need", "decide", "learn", "keep", "go", "get"))
    mod, _ = clauses.modality(pred)
    hypothetical = bool({c.lower_ for c in pred.children if c.dep_ == "aux"} & {"would", "'d"})
    likes_clause = lemma in ("love", "like", "enjoy", "prefer", "hate") and not hypothetical
    if governs and not likes_clause:
        return  # the xcomp carries the fact, with this verb as its modality
    if lemma in ("make", "let", "have", "help") and _causative(pred):
        return  # causative: "made me feel accepted" is the embedded clause's fact
    if pred.dep_ == "xcomp" and pred.head.lemma_.lower() in ("love", "like", "enjoy", "prefer", "hate"):
        head_aux = {c.lower_ for c in pred.head.children if c.dep_ == "aux"}
        if not head_aux & {"would", "'d"} and not clauses.is_negated(pred.head):
            return  # "I love to paint" is the head's ``likes`` record
    marks = {m.lower_ for m in pred.children if m.dep_ == "mark"}
    if pred.dep_ == "advcl" and marks & {"if", "unless", "since", "whenever"}:
        return  # an if-clause is the condition of its head; "since we last talked" is no fact
    subject = _subject_for(state, pred, speaker, other, pos)
    if subject is None:
        return
    aspiration = _aspiration(pred, speaker, other)
    if aspiration is not None:  # "my goal is to ...": the owner's desire / plan
        subject, mod = Subject(aspiration[0], "person", 0.95), aspiration[1]
    gerund = _gerund_complement(pred)
    if gerund is not None:  # "thinking about going camping": the gerund's fact, desired
        found = _property(state, gerund, subject, speaker, other, turn)
        if mod not in (Modality.NEGATED, Modality.PLANNED):
            mod = Modality.PLANNED if lemma == "plan" else Modality.DESIRED
        pred = gerund
    else:
        found = _property(state, pred, subject, speaker, other, turn)
    condition = clauses.condition_of(pred)
    if condition is None and pred.dep_ in ("xcomp", "conj"):
        condition = clauses.condition_of(pred.head)
    subjects = [subject, *_conjunct_subjects(state, pred, subject, speaker, other, pos)]
    for prop, value, rule in found:
        if not value or value.lower() in _PRONOUN_VALUES:
            continue
        for who in subjects:
            state.drafts.append(Draft(
                who.name, who.type, prop.name, value, turn,
                _conf(rule, who.resolution, who.agreement), mod, condition, None, pred, prop.event))
            _inverse(state, who, prop, value, turn, mod, rule)


def _conjunct_subjects(state: _State, pred: Token, first: Subject, speaker: str, other: str,
                       pos: int) -> list[Subject]:
    """"My husband and I drove to Boston": one record per person in the subject."""
    subj = clauses.subject_of(pred)
    if subj is None:
        return []
    out: list[Subject] = []
    for conj in subj.conjuncts:
        who = _resolve(state, conj, speaker, other, pos)
        if who is not None and who.name != first.name and all(o.name != who.name for o in out):
            out.append(who)
    return out


def _causative(pred: Token) -> bool:
    for child in pred.children:
        if child.dep_ in ("ccomp", "xcomp"):
            subj = clauses.subject_of(child)
            if subj is not None and subj.i > pred.i:
                return True
    return any(c.dep_ == "dobj" and c.pos_ == "PRON" for c in pred.children) and any(
        c.dep_ in ("ccomp", "xcomp") for c in pred.children)


_ASPIRATIONS = {"goal": Modality.DESIRED, "dream": Modality.DESIRED, "hope": Modality.DESIRED,
                "wish": Modality.DESIRED, "aim": Modality.DESIRED, "plan": Modality.PLANNED,
                "intention": Modality.PLANNED, "mission": Modality.DESIRED}


def _aspiration(pred: Token, speaker: str, other: str) -> tuple[str, Modality] | None:
    if pred.dep_ != "xcomp" or pred.head.lemma_ != "be":
        return None
    subj = clauses.subject_of(pred.head)
    if subj is None or subj.lemma_.lower() not in _ASPIRATIONS:
        return None
    owner = _possessor(subj, speaker, other)
    return (owner, _ASPIRATIONS[subj.lemma_.lower()]) if owner else None


_SHOT_NOUNS = frozenset({"shot", "chance", "stab", "step", "crack", "go"})


def _gerund_complement(pred: Token) -> Token | None:
    lemma = clauses.lemma(pred)
    shot = any(c.dep_ == "dobj" and c.lemma_.lower() in _SHOT_NOUNS for c in pred.children)
    if lemma == "take" and not shot:
        return None
    if lemma not in ("think", "consider", "dream", "plan", "talk", "take", "look"):
        return None
    for prep in (c for c in pred.children if c.dep_ == "prep" and c.lower_ in ("about", "of", "on", "at")):
        for g in prep.children:
            if g.dep_ in ("pcomp", "pobj") and g.tag_ == "VBG" and g.pos_ == "VERB":
                return g
    if lemma == "take":
        for obj in (c for c in pred.children if c.dep_ == "dobj"):
            for prep in (c for c in obj.children if c.dep_ == "prep" and c.lower_ == "at"):
                found = next((c for c in prep.children if c.dep_ == "pcomp" and c.tag_ == "VBG"), None)
                if found is not None:
                    return found
    dobj = next((c for c in pred.children if c.dep_ in ("dobj", "xcomp") and c.tag_ == "VBG"), None)
    return dobj if dobj is not None and dobj.pos_ == "VERB" else None


def _property(state: _State, pred: Token, subject: Subject, speaker: str, other: str,
              turn: Turn) -> list[tuple[Prop, str, str]]:
    lemma = clauses.lemma(pred)
    kids = list(pred.children)
    dobj = next((c for c in kids if c.dep_ in ("dobj", "obj")), None)
    attr = next((c for c in kids if c.dep_ in ("attr", "oprd")), None)
    acomp = next((c for c in kids if c.dep_ == "acomp"), None)
    preps = [c for c in kids if c.dep_ in ("prep", "agent", "dative")]
    prts = [c for c in kids
            if c.dep_ == "prt" or (c.dep_ == "advmod" and (lemma, c.lower_) in lexicon.PHRASES)]
    xcomp = next((c for c in kids if c.dep_ == "xcomp"), None)
    out: list[tuple[Prop, str, str]] = []

    def pobj(prep: Token) -> Token | None:
        return next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)

    # "my favorite book is X"
    subj_tok = clauses.subject_of(pred)
    if lemma == "be" and subj_tok is not None and attr is not None and any(
            c.lower_ in ("favorite", "favourite") for c in subj_tok.children):
        owner = _possessor(subj_tok, speaker, other) or subject.name
        subject.name, subject.type = owner, "person"
        return [(Prop(f"favorite_{subj_tok.lemma_.lower()}"), clauses.phrase(attr), "pattern")]
    # feelings: "I feel accepted", "made me feel accepted"
    if any(c.lemma_ == "feel" and c.dep_ in ("aux", "auxpass") for c in kids):
        return [(lexicon.FEELS, pred.text, "pattern")]
    # copula and state verbs
    copula = lemma in ("be", "become", "seem", "feel", "stay", "remain") or (
        lemma == "get" and acomp is not None)
    if copula or (pred.pos_ == "AUX" and pred.dep_ == "ROOT"):
        if attr is not None:
            return _copula_noun(attr, subject, lemma)
        if acomp is not None:
            return _copula_adj(acomp, subject)
        for prep in preps:
            rule = lexicon.PHRASES.get((lemma, prep.lower_))
            obj = pobj(prep)
            if rule and obj is not None:
                return [(rule, clauses.phrase(obj), "phrase")]
        when = [c for c in kids
                if c.ent_type_ in ("DATE", "TIME") and c.dep_ in ("npadvmod", "advmod", "attr")]
        if lemma == "be" and when and subject.type != "person":
            # "the first lesson was last Tuesday (at a little studio)": when (and where) it took place
            where = [f"{p.lower_} {clauses.phrase(o)}" for p in preps if (o := pobj(p)) is not None
                     and o.ent_type_ not in ("DATE", "TIME")]
            return [(lexicon.TAKES_PLACE, " ".join(where) or clauses.join(list(when[0].subtree)), "pattern")]
        if lemma == "be" or pred.pos_ == "AUX":
            return []
    if pred.tag_ == "VBN":
        for prep in preps:
            rule = lexicon.ADJ_PREP.get((pred.lower_, prep.lower_))
            obj = pobj(prep)
            if rule and obj is not None:
                return [(rule, clauses.phrase(obj), "phrase")]
        passive = any(c.dep_ == "auxpass" and c.lemma_ in ("be", "get", "feel") for c in kids)
        if passive and dobj is None and subject.type == "person" and lemma not in lexicon.VERBS:
            return [(lexicon.FEELS, pred.text, "pattern")]  # "you must be thrilled"
    # possession: "I have a dog named Oliver"
    possessed = dobj is not None and dobj.lemma_.lower() in lexicon.KIN
    if lemma in ("have", "own", "adopt", "get", "rescue") and dobj is not None and possessed:
        kin = lexicon.KIN[dobj.lemma_.lower()]
        name = _name_of(dobj)
        if name:
            out.append((kin, name, "pattern"))
            if kin is lexicon.PET:
                state.drafts.append(Draft(name, "animal", "species", dobj.lemma_.lower(), turn,
                                          _conf("pattern", subject.resolution)))
        else:
            out.append((kin, clauses.phrase(dobj), "pattern"))
        if lemma in ("adopt", "rescue"):
            out.append((lexicon.VERBS[lemma], name or clauses.phrase(dobj), "lexicon"))
        return out
    # phrases: particle, preposition or object noun
    for prt in prts:
        rule = lexicon.PHRASES.get((lemma, prt.lower_))
        if rule:
            # "guess what, I signed up for X": a pronoun object is a parse slip, take X
            real_dobj = dobj if dobj is not None and dobj.pos_ != "PRON" else None
            target = real_dobj or next((pobj(p) for p in preps if pobj(p) is not None), None) or xcomp
            return [(rule, clauses.phrase(target) if target is not None else prt.head.lemma_ + " " + prt.text,
                     "phrase")]
    if dobj is not None:
        rule = lexicon.PHRASES.get((lemma, dobj.lemma_.lower()))
        if rule:
            detail = [f"{p.lower_} {clauses.phrase(o)}" for p in preps if (o := pobj(p)) is not None
                      and o.ent_type_ not in ("DATE", "TIME")]
            return [(rule, " ".join([clauses.phrase(dobj), *detail]), "phrase")]
    if lemma in lexicon.TRAVEL_VERBS:
        out.extend(_travel(pred, dobj, preps))
        if out:
            return out
    for prep in preps:
        rule = lexicon.PHRASES.get((lemma, prep.lower_))
        obj = pobj(prep)
        if rule and obj is not None and obj.ent_type_ not in ("DATE", "TIME"):
            return [(rule, clauses.phrase(obj), "phrase")]
    prop = lexicon.VERBS.get(lemma)
    if lemma == "make" and dobj is not None and dobj.lemma_.lower() in lexicon.ABSTRACT_MAKE:
        prop = None
    if prop is lexicon.CREATES and any(c.dep_ == "auxpass" for c in kids):
        prop = None  # "the group is made of ..." creates nothing
    value = _value(pred, dobj, xcomp, preps)
    if prop is not None and (value or not prop.relation):
        return [(prop, value or pred.lemma_, "lexicon")]  # "I paint" -> paints: paint
    if lemma == "get" and dobj is not None and dobj.pos_ in ("NOUN", "PROPN") and value:
        perfect = any(c.dep_ == "aux" and c.lemma_ == "have" for c in kids)  # "we've got" = we have
        return [(lexicon.HAS if perfect else lexicon.GETS, value, "lexicon")]
    if pred.pos_ == "VERB" and lemma not in _TRIVIAL_VERBS and lemma.isalpha() and value:
        return [(Prop(lemma), value, "fallback")]
    return []


def _value(pred: Token, dobj: Token | None, xcomp: Token | None, preps: list[Token]) -> str:
    if dobj is not None and dobj.pos_ == "PRON":
        around = [f"{p.lower_} {clauses.phrase(o)}" for p in preps for o in p.children
                  if o.dep_ == "pobj" and o.ent_type_ not in ("DATE", "TIME")]
        if around:
            return " ".join(around)
    if dobj is not None:
        return clauses.phrase(dobj)
    if xcomp is not None:
        return clauses.phrase(xcomp).removeprefix("to ").strip()
    if pred.dep_ == "relcl" and pred.head.pos_ in ("NOUN", "PROPN") and not any(
            c.dep_ in ("nsubj", "nsubjpass") and c.i > pred.head.i and c.lower_ in ("that", "which", "who")
            for c in pred.children):
        head = pred.head  # "the bowl I made on the wheel": the head noun is the object
        return clauses.join([t for t in head.subtree if t.i <= head.i and t.dep_ not in ("det", "poss")])
    for prep in preps:
        obj = next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)
        if obj is not None:
            return f"{prep.lower_} {clauses.phrase(obj)}"
    ccomp = next((c for c in pred.children if c.dep_ == "ccomp"), None)
    if ccomp is not None:
        return clauses.phrase(ccomp, max_words=8)
    if pred.dep_ == "relcl" and pred.head.pos_ in ("NOUN", "PROPN"):  # "the garden I planted"
        head = pred.head
        return clauses.join([t for t in head.subtree if t.i <= head.i and t.dep_ not in ("det", "poss")])
    rest = [c for c in pred.children if c.dep_ in ("acomp", "advmod", "npadvmod", "oprd", "prt")
            and c.ent_type_ not in ("DATE", "TIME")]
    if rest:
        return " ".join([pred.text, *(clauses.phrase(c, max_words=5) for c in rest)])
    return ""


def _copula_noun(attr: Token, subject: Subject, lemma: str) -> list[tuple[Prop, str, str]]:
    noun = attr.lemma_.lower()
    of = next((c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    of_obj = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
    if noun in ("fan", "lover") and of_obj is not None:
        return [(lexicon.LIKES, clauses.phrase(of_obj), "pattern")]
    if noun in ("member", "part") and of_obj is not None:
        return [(lexicon.MEMBER_OF, clauses.phrase(of_obj), "pattern")]
    if subject.type != "person":
        return [(Prop("description"), clauses.phrase(attr), "pattern")]
    if attr.pos_ == "PRON" or attr.pos_ == "NUM":
        if attr.pos_ == "NUM":
            return [(Prop("age"), attr.text, "pattern")]
        return []
    if noun in lexicon.OCCUPATIONS or (noun.endswith(("er", "or", "ist", "ian")) and noun not in
                                       lexicon.NOT_OCCUPATION and attr.pos_ == "NOUN"):
        return [(lexicon.OCCUPATION, clauses.phrase(attr), "pattern")]
    return [(lexicon.IDENTITY, clauses.phrase(attr), "pattern")]


def _copula_adj(acomp: Token, subject: Subject) -> list[tuple[Prop, str, str]]:
    adj = acomp.lemma_.lower()
    for prep in (c for c in acomp.children if c.dep_ == "prep"):
        rule = lexicon.ADJ_PREP.get((adj, prep.lower_))
        obj = next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)
        if rule and obj is not None:
            return [(rule, clauses.phrase(obj), "phrase")]
    if adj in lexicon.RELATIONSHIP_STATUS:
        return [(Prop("relationship_status"), adj, "pattern")]
    if adj in lexicon.HEALTH_ADJ and subject.type == "person":
        return [(Prop("health"), clauses.phrase(acomp), "pattern")]
    if subject.type == "person":
        return [(lexicon.FEELS, clauses.phrase(acomp), "pattern")]
    return [(Prop("description"), clauses.phrase(acomp), "pattern")]


def _travel(pred: Token, dobj: Token | None, preps: list[Token]) -> list[tuple[Prop, str, str]]:
    out: list[tuple[Prop, str, str]] = []
    lemma = pred.lemma_.lower()
    if dobj is not None and dobj.lemma_.lower() in lexicon.TRANSPORT_NOUNS:
        out.append((lexicon.TRANSPORT, dobj.lemma_.lower(), "phrase"))
    for prep in preps:
        obj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if obj is None:
            continue
        if prep.lower_ == "by" and obj.lemma_.lower() in lexicon.TRANSPORT_NOUNS:
            out.append((lexicon.TRANSPORT, obj.lemma_.lower(), "phrase"))
        elif prep.lower_ in ("to", "for", "into") and (prep.lower_ == "to" or lemma != "go"):
            place = obj.ent_type_ in ("GPE", "LOC", "FAC")
            gathering = obj.lemma_.lower() in lexicon.GATHERING_NOUNS
            prop = lexicon.ATTENDS if gathering and not place else lexicon.DESTINATION
            out.append((prop, clauses.phrase(obj), "phrase"))
    if lemma in ("go", "take") and dobj is not None and dobj.lower_.endswith("ing"):  # "go camping"
        verb = clauses.gerund_lemma(dobj.lower_)
        where = [p for p in preps if p.lower_ in ("in", "at", "with", "near", "on")]
        value = " ".join([clauses.phrase(dobj),
                          *(f"{p.lower_} {clauses.phrase(p, max_words=6)}" for p in where)])
        out.append((lexicon.VERBS.get(verb, Prop(verb, event=True)), value, "lexicon"))
    for child in pred.children:  # "went hiking"
        if child.dep_ in ("xcomp", "advcl") and child.tag_ == "VBG" and lemma == "go":
            verb = child.lemma_.lower()
            out.append((lexicon.VERBS.get(verb, Prop(verb, event=True)), clauses.phrase(child), "lexicon"))
    return out


def _possessions(state: _State, sent: Span, turn: Turn, speaker: str, other: str) -> None:
    """"my husband John", "our kids": relation records of the possessor."""
    for tok in sent:
        noun = tok.lemma_.lower()
        if noun not in lexicon.KIN or tok.pos_ != "NOUN":
            continue
        owner = _possessor(tok, speaker, other)
        if owner is None:
            continue
        kin = lexicon.KIN[noun]
        name = _name_of(tok)
        value = name or clauses.join([t for t in tok.subtree
                                      if (t.i <= tok.i and t.dep_ in ("compound", "amod"))
                                      or t.i == tok.i])
        resolution = 1.0 if owner in (speaker, other) else 0.9
        subject = Subject(owner, "person", resolution)
        state.drafts.append(Draft(owner, "person", kin.name, value, turn, _conf("pattern", resolution)))
        if name:
            _inverse(state, subject, kin, name, turn, Modality.OBSERVED, "pattern")
            if kin is lexicon.PET:
                state.drafts.append(Draft(name, "animal", "species", tok.lower_, turn, _conf("pattern", 1.0)))


def _inverse(state: _State, subject: Subject, prop: Prop, value: str, turn: Turn, mod: Modality,
             rule: str) -> None:
    """Entailed inverse relations only: symmetric kin/social ties and child <-> parent, for names."""
    if subject.type != "person" or not value[:1].isupper() or len(value.split()) > 3:
        return
    inverse = prop.name if prop.name in _SYMMETRIC else _INVERSE.get(prop.name)
    if inverse is None:
        return
    state.drafts.append(Draft(value, "person", inverse, subject.name, turn,
                              _conf(rule, subject.resolution * 0.95), mod))


# --------------------------------------------------------------------------- time, fallback
def _attach_times(state: _State, sent: Span, turn: Turn, first_of_turn: int,
                  carried: list[Span]) -> list[Span]:
    """Give each DATE/TIME span of the sentence to the records of the clause it belongs to.

    A span in a sentence that gave no record is carried to the next sentence of the turn when
    that one has none of its own; the spans to carry on are returned."""
    # a time word inside a noun phrase ("the warm summer breeze", "summer break") is no time
    own = [e for e in sent.ents if e.label_ in ("DATE", "TIME") and not clauses.is_noun_modifier(e.root)]
    mine = [d for d in state.drafts[first_of_turn:] if d.pred is not None and d.pred.sent == sent]
    if not own and carried and mine:
        for d in mine:
            if d.time is None:
                d.time = _normalise(carried[0], d, turn)
        return []
    if not own:
        return []
    if not mine:
        return own
    for ent in own:
        owner = clauses.owning_clause(ent.root)
        at = owner.i if owner is not None else -1
        targets = [d for d in mine if d.pred is not None and (
            d.pred.i == at or (d.pred.head.i == at and d.pred.dep_ in ("xcomp", "conj")))]
        for d in targets or mine[:1]:
            if d.time is None:
                d.time = _normalise(ent, d, turn)
    return []


def _normalise(ent: Span, d: Draft, turn: Turn) -> timex.TimeValue | None:
    ahead = d.modality in (Modality.PLANNED, Modality.DESIRED) or d.prop in _AHEAD
    prefer: Literal["past", "future"] = "future" if ahead else "past"
    before = ent.doc[ent.start - 1].lower_ if ent.start > 0 else ""
    return timex.normalise(ent.text, turn.session_time, prefer=prefer, preceded_by=before)


def _fallback(state: _State, doc: Doc, turn: Turn, speaker: str, other: str, pos: int) -> None:
    """One record for an informative turn the rules missed: its main verb, else its topic."""
    names = {n.lower() for s in state.info.speakers for n in (s, s[:3])}
    statements = [s for s in doc.sents if not clauses.is_question(s) and len(_content(s, names)) >= 2]
    if not statements:
        return
    for sent in statements:
        for tok in sent:
            if _in_condition(tok) or tok.dep_ in ("csubj", "csubjpass"):
                continue  # "Winning first place is amazing!" is not the speaker winning
            if tok.pos_ == "VERB" and clauses.lemma(tok) not in _TRIVIAL_VERBS and tok.lemma_.isalpha():
                subj = clauses.subject_of(tok)
                who = _resolve(state, subj, speaker, other, pos) if subj is not None else None
                if subj is not None and who is None:
                    continue  # "she loves dinosaurs" with no "she" in sight: not the speaker's fact
                dobj = next((c for c in tok.children if c.dep_ == "dobj"), None)
                value = _value(tok, dobj, None, [c for c in tok.children if c.dep_ == "prep"])
                value = value or clauses.phrase(tok, max_words=8)
                if value.lower() in _PRONOUN_VALUES or value.lower() == tok.lower_:
                    continue
                prop = lexicon.VERBS.get(clauses.lemma(tok), Prop(clauses.lemma(tok)))
                entity, kind, resolution = ((who.name, who.type, who.resolution) if who
                                            else (speaker, "person", 0.7))
                state.drafts.append(Draft(entity, kind, prop.name, value, turn,
                                          _conf("fallback", resolution), pred=tok))
                return
    chunks = [c for s in statements for c in s.noun_chunks if c.root.pos_ in ("NOUN", "PROPN")
              and not c.root.is_stop]
    if chunks:
        best = max(chunks, key=lambda c: len(c.text))
        state.drafts.append(Draft(speaker, "person", "talks_about", clauses.phrase(best.root), turn,
                                  _conf("topic", 0.7)))


def _in_condition(tok: Token) -> bool:
    node = tok
    for _ in range(8):
        marks = {m.lower_ for m in node.children if m.dep_ == "mark"}
        if node.dep_ == "advcl" and marks & {"if", "unless"}:
            return True
        if node.head.i == node.i:
            return False
        node = node.head
    return False


def _content(sent: Span, names: set[str]) -> list[Token]:
    return [t for t in sent if t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM") and not t.is_stop
            and t.lower_ not in lexicon.ACK_WORDS and t.lower_ not in names]


def _clean_caption(caption: str) -> str:
    text = " ".join(caption.split())
    for prefix in ("a photo of ", "a picture of ", "an image of ", "a photography of ", "photo of ",
                   "there is ", "this is "):
        if text.lower().startswith(prefix):
            text = text[len(prefix):]
            break
    return text.strip()


# --------------------------------------------------------------------------- records, events
def _finish(state: _State, turns: list[Turn]) -> Extraction:
    episode = state.episode
    records: list[Record] = []
    events: list[EventFrame] = []
    seen: set[tuple[str, str, str, str, str]] = set()
    event_preds: set[int] = set()
    for d in state.drafts:
        entity, value = d.entity.strip(), " ".join(d.value.split())
        key = (entity.lower(), d.prop, value.lower(), d.modality.value, d.turn.id)
        if not entity or not d.prop or not value or key in seen:
            continue
        seen.add(key)
        records.append(Record(
            id=f"{episode.id}:R{len(records) + 1}", conv_id=episode.conv_id, episode_id=episode.id,
            entity=entity, entity_type=d.entity_type, property=d.prop, value=value[:200],
            condition=d.condition, modality=d.modality,
            valid_time=d.time.iso if d.time else None, valid_time_text=d.time.text if d.time else None,
            evidence_turn_ids=(d.turn.id,), confidence=d.confidence, source_speaker=d.turn.speaker,
        ))
        if d.pred is not None and (d.event or d.time is not None) and d.pred.pos_ == "VERB":
            key_pred = hash((d.turn.id, d.pred.i))
            if key_pred in event_preds:
                continue
            event_preds.add(key_pred)
            events.append(_frame(state, d, len(events) + 1))
    return Extraction(records=records, events=events)


def _frame(state: _State, d: Draft, n: int) -> EventFrame:
    pred = d.pred
    assert pred is not None
    participants = list(dict.fromkeys(
        o.entity for o in state.drafts
        if o.turn.id == d.turn.id and o.pred is not None and o.pred.i == pred.i))
    place = None
    for tok in pred.subtree:
        if tok.ent_type_ == "PERSON" and tok.ent_iob_ == "B":
            name = tok.text if tok.i + 1 >= len(tok.doc) or tok.doc[tok.i + 1].ent_iob_ != "I" else \
                " ".join(t.text for t in tok.doc[tok.i:tok.i + 3] if t.ent_type_ == "PERSON")
            if name not in participants:
                participants.append(name)
        if place is None and tok.ent_type_ in ("GPE", "LOC", "FAC") and tok.ent_iob_ == "B":
            place = next((e.text for e in tok.doc.ents if e.start == tok.i), tok.text)
    for prep in (c for c in pred.children if c.dep_ == "prep" and c.lower_ == "with"):
        for obj in (c for c in prep.children if c.dep_ == "pobj"):
            owner = _possessor(obj, d.turn.speaker, "")
            label = f"{owner}'s {obj.lower_}" if owner else (obj.text if obj.pos_ == "PROPN" else None)
            if label and label not in participants:
                participants.append(label)
    action = pred.lemma_.lower()
    prt = next((c.lower_ for c in pred.children if c.dep_ == "prt"), "")
    action = f"{action} {prt}".strip() + f": {d.value}"
    manner = clauses.manner_of(pred)
    if d.prop == "means_of_transport":
        manner = f"by {d.value}"
    return EventFrame(
        id=f"{state.episode.id}:V{n}", conv_id=state.episode.conv_id, episode_id=state.episode.id,
        action=action[:160], participants=tuple(participants), time=d.time.iso if d.time else None,
        time_text=d.time.text if d.time else None, place=place, cause=clauses.cause_of(pred),
        manner=manner, source_turn_ids=(d.turn.id,),
    )
