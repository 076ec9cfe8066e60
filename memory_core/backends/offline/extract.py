"""Offline record and event-frame extraction for one episode (spaCy + rules).

For every statement sentence of every turn (questions assert nothing and are skipped), each
clause gives at most a few records ⟨entity, type, property, value, condition, modality,
valid_time, evidence, confidence, speaker⟩. The concerns live in their own modules:

* **who** — ``subjects``: the clause subject resolved to a speaker, a kin noun, a named or
  earlier-mentioned person, "it" → the last object of the same turn, ellipsis → the speaker;
* **what** — ``properties``: a table of rules (phrases first, then verbs, copula patterns,
  possessed nouns), else the verb's own lemma; the value is the object phrase;
* **how** — here: modality from governing verbs and auxiliaries (want → desired, plan/going
  to/will → planned, would/could → hypothetical, not/never → negated), "if" clauses as
  conditions, "my goal is to ..." as the owner's wish, "thinking about going camping";
* **when** — ``timing``: DATE/TIME spans of the clause normalised against the session date;
* records and event frames from the drafts — ``frames``.

Image captions give a ``shares_image`` record citing their own turn. A turn with content but
no record from the rules gets one fallback record (its main verb lemma, or ``talks_about``
its key noun phrase) so that nearly every informative turn is addressable.

Confidence (``drafts.conf``) = specificity × resolution × agreement: specificity 0.9 (phrase
rule), 0.8 (lexicon verb), 0.75 (copula / possessive / have pattern), 0.7 (image caption), 0.55
(verb-lemma fallback), 0.45 (topic fallback); resolution and agreement as in ``subjects``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core.backends.offline import clauses
from memory_core.backends.offline.aliases import find_aliases, named_kinds, speaker_alias
from memory_core.backends.offline.drafts import (
    PRONOUN_VALUES,
    TRIVIAL_VERBS,
    Draft,
    ExtractState,
    Subject,
    conf,
)
from memory_core.backends.offline.frames import clean_value, finish
from memory_core.backends.offline.properties import names_a_place, property_of, value_of
from memory_core.backends.offline.propositions import (
    advice_text,
    complement,
    is_imperative,
    is_view_subject,
    third_person,
    verb_property,
    view_text,
)
from memory_core.backends.offline.subjects import (
    PLACE_ENTS,
    conjunct_subjects,
    last_object,
    name_of,
    other_speaker,
    possessor,
    register_mentions,
    resolve,
    subject_for,
)
from memory_core.backends.offline.valid_time import attach_times
from memory_core.construct import lexicon
from memory_core.construct.entities import GOES_BY
from memory_core.construct.lexicon import Prop
from memory_core.contracts import ConversationInfo, Extraction
from memory_core.models import Episode, Modality, Turn

if TYPE_CHECKING:
    from collections.abc import Callable

    from spacy.tokens import Doc, Span, Token

# what a view says better than a copula rule
_VIEW_PROPS = frozenset({"description", "feels", "identity", "health", "occupation"})
_PLACES = frozenset({lexicon.DESTINATION, lexicon.ATTENDS, lexicon.VISITS})
_COLLEAGUE = lexicon.KIN["colleague"]
_WORKPLACES = frozenset({"work", "office"})  # "Ingrid from work": a colleague
_SYMMETRIC = frozenset({"spouse", "partner", "sibling", "friend", "colleague", "meets", "relative"})
_INVERSE = {"child": "parent", "parent": "child"}


def extract_episode(episode: Episode, turns: list[Turn], docs: list[Doc], info: ConversationInfo,
                    parse: Callable[[list[str]], list[Doc]]) -> Extraction:
    """Records and event frames of one episode; ``docs`` are the parsed (normalised) turn texts,
    ``parse`` the backend's (cached) parser, for a piece of a sentence read alone."""
    state = ExtractState(episode, info)
    others = [other_speaker(turns, pos, info) for pos in range(len(turns))]
    for pos, who, alias in find_aliases(docs, [t.speaker for t in turns], others, info.speakers):
        state.aliases.setdefault(alias.lower(), who)
        state.drafts.append(Draft(who, "person", GOES_BY, alias, turns[pos], conf("pattern", 1.0)))
    for pos, (turn, doc) in enumerate(zip(turns, docs, strict=True)):
        speaker, other = turn.speaker, other_speaker(turns, pos, info)
        before = len(state.drafts)
        carried: list[Span] = []  # "Last night was amazing! We celebrated ...": the time carries on
        kinds: list[Draft] = []  # what names name: no fact of the turn's own (the fallback still runs)
        for sent in doc.sents:
            register_mentions(state, sent, speaker, other, pos)
            if clauses.in_table_row(sent):
                continue  # a table row's cells are no sentence
            if clauses.is_question(sent):
                # a question states nothing, but the statement it may open with does ("I finished
                # another bowl - want to see it?")
                if (stated := clauses.stated_before_question(sent)) is not None:
                    for part in parse([stated])[0].sents:
                        for pred in clauses.clause_heads(part):
                            if clauses.is_said(pred) and not clauses.is_question(part):
                                _clause(state, pred, turn, pos, speaker, other)
                continue
            _possessions(state, sent, turn, speaker, other)
            _from_work(state, sent, turn, speaker)
            kinds.extend(named_kinds(sent, turn, info.speakers, info.common_words, info.lower_words))
            for pred in clauses.clause_heads(sent):
                _clause(state, pred, turn, pos, speaker, other)
            carried = attach_times(state, sent, turn, before, carried)
        if turn.image_caption:
            caption = _clean_caption(turn.image_caption)
            if caption:
                state.drafts.append(Draft(speaker, "person", "shares_image", caption, turn,
                                          conf("caption", 1.0)))
        if len(state.drafts) == before:
            _fallback(state, doc, turn, speaker, other, pos)
        said = {(d.entity, d.value) for d in state.drafts[before:] if d.prop == "species"}
        state.drafts.extend(k for k in kinds if (k.entity, k.value) not in said)  # "got a snake called X"
    return finish(state, turns)


# --------------------------------------------------------------------------- clauses
_TIME_MARKS = frozenset({"since", "when", "while", "until", "till", "before", "after", "once"})


def _clause(state: ExtractState, pred: Token, turn: Turn, pos: int, speaker: str, other: str) -> None:
    lemma = clauses.lemma(pred)
    if any(c.dep_ in ("attr", "acomp", "oprd") and c.lower_ in state.aliases for c in pred.children):
        return  # "I'm Kat" / "my name is Kat": the ``goes_by`` record says it
    if pred.dep_ == "ROOT" and all(c.is_punct for c in pred.children):
        return  # "Fancy!", "Agreed.": a one-word sentence reacts, it says nothing about anyone
    if clauses.keeps_on(pred):
        return  # "can't stop thinking about the trip": the thinking is the fact, and goes on
    if clauses.names_a_kind(pred):
        return  # "I have baking news": nobody bakes news
    if clauses.is_eager(pred) and (ahead := clauses.eager_complement(pred)) is not None:
        _looked_forward(state, pred, ahead, turn, pos, speaker, other)
        return  # "can't wait to visit Rome": the visit is the fact, planned
    if _is_advice(pred.head if pred.dep_ == "conj" else pred):
        return  # "said to cut back and stretch more": the advice's own record, below, says it
    if _advised(state, pred, turn, pos, speaker, other):
        return
    if is_imperative(pred) and clauses.subject_of(pred) is None and not clauses.is_eager(pred):
        advice = advice_text(pred, speaker, other)  # "Keep going after your dreams!" to the other
        if len(advice.split()) >= 5:  # "have fun", "stay safe": a parting wish, no advice
            state.drafts.append(Draft(speaker, "person", "encourages", advice, turn, conf("pattern", 1.0),
                                      Modality.OBSERVED, clauses.condition_of(pred), None, pred))
        return
    if _idiom(pred) or (pred.dep_ in ("xcomp", "oprd", "ccomp") and _idiom(pred.head)):
        return  # "makes sense", "I'll keep you posted": no fact
    if _named_it(state, pred, turn):
        return
    xcomp = next((c for c in pred.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)
    governs = xcomp is not None and (
        lemma in lexicon.DESIRE_VERBS | lexicon.PLAN_VERBS
        or lemma in ("start", "begin", "continue", "try", "need", "decide", "learn", "keep", "go", "get")
        # "had to sell my bike": the selling is the fact, "have to" no possession
        or (lemma == "have" and any(c.dep_ == "aux" and c.lower_ == "to" for c in xcomp.children)))
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
    catching_up = "since" in marks and _catching_up(pred)
    if pred.dep_ == "advcl" and (marks & {"if", "unless", "whenever"} or catching_up):
        return  # an if-clause is the condition of its head; "since we last talked" is no fact
    if lemma == "be" and pred.dep_ == "advcl" and (marks & _TIME_MARKS or any(
            c.dep_ == "advmod" and c.lower_ == "when" for c in pred.children)):
        return  # "since I was a kid", "when I was a teenager": when the main clause held, no identity
    subj_tok = clauses.subject_of(pred)
    head_subj = clauses.subject_of(pred.head) if pred.dep_ in ("ccomp", "xcomp") and pred.head.i != pred.i \
        else None
    if head_subj is not None and head_subj.lower_ == "it" and is_view_subject(head_subj):
        return  # "it's important to me that people have someone to talk to": part of that view
    subject = subject_for(state, pred, speaker, other, pos)
    if subj_tok is not None and pred.dep_ in ("ROOT", "conj", "ccomp") and is_view_subject(subj_tok):
        # a specific rule still wins ("my favorite book is Dune", "the lesson was on Tuesday")
        specific = [] if subject is None else [
            f for f in property_of(state, pred, Subject(subject.name, subject.type, subject.resolution),
                                   speaker, other, turn)
            if f[2] in ("phrase", "pattern") and f[0].name not in _VIEW_PROPS]
        if not specific:
            _view(state, pred, subj_tok, turn, speaker, other, mod)
            return
    if subject is None:
        return
    aspiration = _aspiration(pred, speaker, other)
    if aspiration is not None:  # "my goal is to ...": the owner's desire / plan
        subject, mod = Subject(aspiration[0], "person", 0.95), aspiration[1]
    gerund = _gerund_complement(pred)
    if gerund is not None:  # "thinking about going camping": the gerund's fact, desired
        found = property_of(state, gerund, subject, speaker, other, turn)
        if mod not in (Modality.NEGATED, Modality.PLANNED):
            mod = Modality.PLANNED if lemma == "plan" else Modality.DESIRED
        pred = gerund
    else:
        found = property_of(state, pred, subject, speaker, other, turn)
    found = [f for f in _as_propositions(found, pred, subject, speaker, other)
             if names_a_place(f[0], f[1], pred)]
    condition = clauses.condition_of(pred)
    if condition is None and pred.dep_ in ("xcomp", "conj"):
        condition = clauses.condition_of(pred.head)
    subjects = [subject, *conjunct_subjects(state, pred, subject, speaker, other, pos)]
    for prop, value, rule in found:
        value = _object_named(state, pred, value, speaker, other, pos)
        if not value or value.lower() in PRONOUN_VALUES:
            continue
        if prop.name == "adopts":
            _adopted_pet(state, pred, subjects, value, turn, mod)
        if prop is lexicon.FEELS and _bare_feeling(value) and not _caused(pred):
            continue  # a bare feeling ("I'm sure about it", "feeling positive!") is phatic
        for who in subjects:
            state.drafts.append(Draft(
                who.name, who.type, prop.name, value, turn,
                conf(rule, who.resolution, who.agreement), mod, condition, None, pred, prop.event))
            _inverse(state, who, prop, value, turn, mod, rule)


_ADVISING = frozenset({"say", "tell"})  # ("advised me to ..." is the lexicon's own ``advises``)


def _advice_of(pred: Token) -> Token | None:
    """The "to"-clause of advice ("said to rest", "told me to rest")."""
    if clauses.lemma(pred) not in _ADVISING:
        return None
    return next((c for c in pred.children if c.dep_ in ("xcomp", "ccomp") and c.pos_ == "VERB"
                 and any(a.dep_ == "aux" and a.lower_ == "to" for a in c.children)), None)


def _is_advice(pred: Token) -> bool:
    """``pred`` is the "to"-clause of its head's advice."""
    advice = _advice_of(pred.head) if pred.head.i != pred.i else None
    return advice is not None and advice.i == pred.i


def _advised(state: ExtractState, pred: Token, turn: Turn, pos: int, speaker: str, other: str) -> bool:
    """"My physio said to cut back and stretch more", "the doctor told me to rest": advice a
    third person gave, to whom it was told (else the speaker) — ``encourages``, as the speakers'
    own advice is."""
    todo = _advice_of(pred)
    if todo is None:
        return False
    adviser = subject_for(state, pred, speaker, other, pos)
    if adviser is None or adviser.name in (speaker, other):
        return False
    told = next((c for c in pred.children if c.dep_ in ("dobj", "dative")), None)
    advisee = resolve(state, told, speaker, other, pos) if told is not None \
        else Subject(speaker, "person", 1.0)
    if advisee is None:
        return False
    value = advice_text(todo, speaker, other, to=advisee.name,
                        and_then=[c for c in todo.children if c.dep_ == "conj" and c.pos_ == "VERB"])
    if not value:
        return False
    state.drafts.append(Draft(adviser.name, adviser.type, "encourages", value, turn,
                              conf("pattern", adviser.resolution), Modality.OBSERVED, None, None, pred))
    return True


def _named_it(state: ExtractState, pred: Token, turn: Turn) -> bool:
    """"The EP is done! We called it Low Light": what "it" refers to is called the name given
    (``is_called``), as "it's called Low Light" would say."""
    if clauses.lemma(pred) not in ("call", "name") or clauses.names_passively(pred):
        return False
    if not any(c.dep_ == "dobj" and c.lower_ == "it" for c in pred.children):
        return False
    name = next((c for c in pred.children if c.dep_ == "oprd" and c.pos_ == "PROPN"), None)
    thing = last_object(pred)
    if name is None or thing is None:
        return False
    text = name.doc[name.left_edge.i : name.right_edge.i + 1].text.strip('"“”\' ')
    state.drafts.append(Draft(thing, "concept", lexicon.IS_CALLED.name, text, turn, conf("pattern", 0.6)))
    return True


def _looked_forward(state: ExtractState, pred: Token, ahead: Token, turn: Turn, pos: int, speaker: str,
                    other: str) -> None:
    """"can't wait to see your new bakery": a verb no rule reads ("see", "hear") is looked forward
    to with its object; a pronoun alone ("can't wait to hear about it") says nothing."""
    if clauses.lemma(ahead) not in TRIVIAL_VERBS or not any(
            t.pos_ in ("NOUN", "PROPN") for t in ahead.subtree if t.i != ahead.i):
        return
    subject = subject_for(state, pred, speaker, other, pos)
    if subject is None:
        return
    value = complement(ahead, speaker, other, subject.name, with_verb=True)
    if len(value.split()) > 1:
        state.drafts.append(Draft(subject.name, subject.type, lexicon.LOOKS_FORWARD_TO.name, value, turn,
                                  conf("phrase", subject.resolution, subject.agreement), Modality.OBSERVED,
                                  clauses.condition_of(pred), None, ahead))


def _idiom(pred: Token) -> bool:
    """A verb + object idiom that states nothing about anyone ("makes sense", "keep you posted";
    "make sure": what is made sure of is its own clause)."""
    lemma = clauses.lemma(pred)
    return any(c.dep_ in ("dobj", "acomp", "xcomp", "oprd", "ccomp")
               and ((lemma, c.lower_) in lexicon.NO_FACT_PHRASES
                    or (lemma, c.lemma_.lower()) in lexicon.NO_FACT_PHRASES) for c in pred.children)


def _object_named(state: ExtractState, pred: Token, value: str, speaker: str, other: str, pos: int) -> str:
    """"adopted her from the shelter" -> "Pepper from the shelter": a third-person object that
    opens the value is the person or animal it resolves to (as a subject would), if any; the
    object of a naming verb is the name it is given ("named him Victor" -> "Victor")."""
    first, _, rest = value.partition(" ")
    obj = next((c for c in pred.children if c.dep_ == "dobj" and c.lower_ == first.lower()), None)
    if obj is None or obj.lower_ not in ("him", "her", "them", "it"):
        return value
    if rest[:1].isupper() and any(c.dep_ == "oprd" for c in pred.children):
        return rest  # "named him Victor", "called it Low Light": the name given is the value
    if obj.lower_ == "it":
        return value
    who = resolve(state, obj, speaker, other, pos)
    return f"{who.name} {rest}".strip() if who is not None else value


_TAKEN_IN_AT = frozenset({"shelter", "rescue", "pound", "breeder", "sanctuary"})


def _adopted_pet(state: ExtractState, pred: Token, owners: list[Subject], value: str, turn: Turn,
                 mod: Modality) -> None:
    """"I adopted her from the dog shelter" (her: Pepper): a name adopted from an animal shelter,
    rescue or breeder is the adopter's pet, of the kind the place names (a "dog shelter": a dog)."""
    name, _, rest = value.partition(" from ")
    if not rest or not name[:1].isupper() or len(name.split()) > 2:
        return
    place = next((o for p in pred.children if p.dep_ == "prep" and p.lower_ == "from"
                  for o in p.children if o.dep_ == "pobj"), None)
    if place is None or place.lemma_.lower() not in _TAKEN_IN_AT:
        return
    kind = next((c.lemma_.lower() for c in place.children
                 if c.dep_ == "compound" and c.lemma_.lower() in lexicon.ANIMAL_NOUNS), None)
    for who in owners:
        state.drafts.append(Draft(who.name, who.type, lexicon.PET.name, name, turn,
                                  conf("pattern", who.resolution), mod))
    if kind is not None:
        state.drafts.append(Draft(name, "animal", "species", kind, turn, conf("pattern", 1.0), mod))


def _view(state: ExtractState, pred: Token, subj: Token, turn: Turn, speaker: str, other: str,
          mod: Modality) -> None:
    """"Family time matters to me" (Melanie): Melanie thinks family time matters to Melanie."""
    text = view_text(pred, subj, speaker, other)
    words = text.split()
    if len(words) < 3 or (speaker not in text and other not in text and len(words) < 6):
        return  # "the flowers are pretty": a passing remark, not the speaker's considered view
    state.drafts.append(Draft(speaker, "person", "thinks", text, turn, conf("pattern", 1.0), mod,
                              clauses.condition_of(pred), None, pred))


def _as_propositions(found: list[tuple[Prop, str, str]], pred: Token, subject: Subject, speaker: str,
                     other: str) -> list[tuple[Prop, str, str]]:
    """Keep the object that carries the fact: a verb no rule knows is its own property with the
    whole complement as value; a lexicon verb or a feeling keeps its complement too."""
    out = []
    carried = next((c for c in pred.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN")), None)
    for prop, value, rule in found:
        if prop in _PLACES and carried is not None and carried.lemma_.lower() not in lexicon.TRANSPORT_NOUNS:
            # "took the kids to the museum": what went there is part of the fact
            full = complement(pred, speaker, other, subject.name)
            if value in full:
                value = full
        if rule in ("fallback", "lexicon") or prop is lexicon.FEELS:
            # a feeling keeps its adjective or participle ("stoked to start this new chapter")
            # ... but not a copula's "been" ("have been instrumental in it": "instrumental in it")
            felt = prop is lexicon.FEELS and (pred.pos_ == "ADJ" or pred.tag_ == "VBN") \
                and pred.lemma_ != "be"
            full = complement(pred, speaker, other, subject.name, with_verb=felt)
            if rule == "fallback":
                prop = Prop(verb_property(pred), event=True)
            if value[:1].isupper() and full.endswith(value):
                full = ""  # "adopted a dog named Rex": the name is the value
            if pred.dep_ == "relcl" and full and value and value not in full:
                full = f"{value} {full}"  # "the bowl I made on the wheel": creates bowl on the wheel
            if full and len(full.split()) >= len(value.split()):
                value = full
        out.append((prop, value, rule))
    return out


_FEELING_FILLER = frozenset({"feel", "feels", "feeling", "felt", "so", "very", "really", "pretty", "too",
                             "super", "totally", "quite", "just", "about", "it", "that", "this", "all", "now",
                             "today", "good", "great"})


def _bare_feeling(value: str) -> bool:
    """One feeling word and nothing it is about: "sure", "feel positive", "so sure about it"."""
    rest = [w for w in value.lower().split() if w not in _FEELING_FILLER]
    return len(rest) <= 1 and len(value.split()) <= 4


_CATCH_UP = frozenset({"talk", "chat", "speak", "see", "meet", "catch", "hear", "text", "write", "message"})


def _catching_up(pred: Token) -> bool:
    """"since we last talked / saw each other" dates the chat; "since I lost my job" is a fact."""
    return clauses.lemma(pred) in _CATCH_UP or any(t.lower_ == "last" for t in pred.subtree)


def _caused(pred: Token) -> bool:
    """"the group made me feel accepted": a feeling with its cause is worth a record."""
    return (pred.head.i != pred.i and pred.head.lemma_.lower() in ("make", "let", "help", "have")) or \
        clauses.cause_of(pred) is not None


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
    owner = possessor(subj, speaker, other)
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


def _possessions(state: ExtractState, sent: Span, turn: Turn, speaker: str, other: str) -> None:
    """"my husband John", "our kids": relation records of the possessor."""
    for tok in sent:
        noun = tok.lemma_.lower()
        kin = lexicon.kin_of(noun)
        if kin is None or tok.pos_ != "NOUN":
            continue  # "my guinea pig", "my goat": any animal one owns is a pet
        if kin is lexicon.PET and _eaten(tok):
            continue  # "she cooked my favorite jerk chicken": a dish, no pet
        owner = possessor(tok, speaker, other)
        if owner is None:
            continue
        name = name_of(tok, state, owner)
        # an unnamed relative is the owner's ("Jonas's mom"): the same entity as the subject of
        # "my mom buys her sausages", linked to the owner by this record, never merged into them
        value = name or f"{owner}'s " + clauses.join([t for t in tok.subtree
                                                      if (t.i <= tok.i and t.dep_ in ("compound", "amod"))
                                                      or t.i == tok.i])
        resolution = 1.0 if owner in (speaker, other) else 0.9
        subject = Subject(owner, "person", resolution)
        state.drafts.append(Draft(owner, "person", kin.name, value, turn, conf("pattern", resolution)))
        if name:
            _inverse(state, subject, kin, name, turn, Modality.OBSERVED, "pattern")
            if kin is lexicon.PET:
                state.drafts.append(Draft(name, "animal", "species", clauses.kind(tok), turn,
                                          conf("pattern", 1.0)))


def _eaten(tok: Token) -> bool:
    """The noun is what someone cooks or eats (the object of a food verb)."""
    return tok.dep_ in ("dobj", "obj") and tok.head.lemma_.lower() in lexicon.FOOD_VERBS


def _from_work(state: ExtractState, sent: Span, turn: Turn, speaker: str) -> None:
    """"Ingrid from work named him": a name said with "from work" is the speaker's colleague
    (read from the words, not the parse: "from work" attaches anywhere)."""
    doc = sent.doc
    for tok in sent:
        if tok.pos_ != "PROPN" or not tok.text[:1].isupper() or tok.ent_type_ in PLACE_ENTS \
                or tok.i + 2 >= len(doc):
            continue
        if doc[tok.i + 1].lower_ != "from" or doc[tok.i + 2].lemma_.lower() not in _WORKPLACES:
            continue
        if speaker_alias(tok.text, state.info.speakers, state.aliases) is not None:
            continue  # a speaker is no colleague of their own ("Maya from work here")
        state.drafts.append(Draft(speaker, "person", _COLLEAGUE.name, tok.text, turn, conf("pattern", 1.0)))
        _inverse(state, Subject(speaker, "person", 1.0), _COLLEAGUE, tok.text, turn, Modality.OBSERVED,
                 "pattern")


def _inverse(state: ExtractState, subject: Subject, prop: Prop, value: str, turn: Turn, mod: Modality,
             rule: str) -> None:
    """Entailed inverse relations only: symmetric kin/social ties and child <-> parent, for names
    (the name as its record's value is cleaned: "met Ines yet" is a tie to Ines)."""
    value = clean_value(value, prop.name)
    if subject.type != "person" or not value[:1].isupper() or len(value.split()) > 3:
        return
    inverse = prop.name if prop.name in _SYMMETRIC else _INVERSE.get(prop.name)
    if inverse is None:
        return
    state.drafts.append(Draft(value, "person", inverse, subject.name, turn,
                              conf(rule, subject.resolution * 0.95), mod))


# --------------------------------------------------------------------------- fallback, captions
def _fallback(state: ExtractState, doc: Doc, turn: Turn, speaker: str, other: str, pos: int) -> None:
    """One record for an informative turn the rules missed: its main verb, else its topic."""
    names = {n.lower() for s in state.info.speakers for n in (s, s[:3])}
    statements = [s for s in doc.sents if not clauses.is_question(s) and len(_content(s, names)) >= 2]
    if not statements:
        return
    for sent in statements:
        for tok in sent:
            if _in_condition(tok) or tok.dep_ in ("csubj", "csubjpass") or clauses.is_eager(tok) \
                    or clauses.names_a_kind(tok):
                continue  # "Winning first place is amazing!" is not the speaker winning
            if tok.pos_ == "VERB" and clauses.lemma(tok) not in TRIVIAL_VERBS and tok.lemma_.isalpha() \
                    and not _idiom(tok):
                subj = clauses.subject_of(tok)
                who = resolve(state, subj, speaker, other, pos) if subj is not None else None
                if subj is not None and who is None:
                    continue  # "she loves dinosaurs" with no "she" in sight: not the speaker's fact
                dobj = next((c for c in tok.children if c.dep_ == "dobj"), None)
                value = value_of(tok, dobj, None, [c for c in tok.children if c.dep_ == "prep"])
                value = value or clauses.phrase(tok, max_words=8)
                if value.lower() in PRONOUN_VALUES or value.lower() == tok.lower_:
                    continue
                prop = lexicon.VERBS.get(clauses.lemma(tok), Prop(third_person(clauses.lemma(tok))))
                if prop is lexicon.FEELS and _bare_feeling(value):
                    return  # "Feeling great today!": phatic
                entity, kind, resolution = ((who.name, who.type, who.resolution) if who
                                            else (speaker, "person", 0.7))
                state.drafts.append(Draft(entity, kind, prop.name, value, turn,
                                          conf("fallback", resolution), pred=tok))
                return
    chunks = [c for s in statements for c in s.noun_chunks if c.root.pos_ in ("NOUN", "PROPN")
              and not c.root.is_stop]
    if chunks:
        best = max(chunks, key=lambda c: len(c.text))
        state.drafts.append(Draft(speaker, "person", "talks_about", clauses.phrase(best.root), turn,
                                  conf("topic", 0.7)))


def _in_condition(tok: Token) -> bool:
    """Inside an if-clause, or a since-clause that only dates the chat ("since we last talked")."""
    node = tok
    for _ in range(8):
        marks = {m.lower_ for m in node.children if m.dep_ == "mark"}
        if node.dep_ == "advcl" and (marks & {"if", "unless"} or ("since" in marks and _catching_up(node))):
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
