"""The property of a clause, as a table of rules read top to bottom.

``property_of`` looks at the clause's predicate and its dependents (``Clause``) and returns
(property, value, rule kind) triples; the first rule of ``RULES`` that decides (returns a list,
possibly empty) wins. The rule kind sets the confidence's specificity (``drafts.SPECIFICITY``).
Properties and their word lists live in ``lexicon``: phrases first, then verbs, copula
patterns, possessed nouns; a verb no list knows gives its own lemma as the property.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from memory_core.backends.offline import clauses
from memory_core.backends.offline.drafts import TRIVIAL_VERBS, Draft, ExtractState, Subject, conf
from memory_core.backends.offline.subjects import name_of, possessor
from memory_core.construct import lexicon
from memory_core.construct.lexicon import Prop
from memory_core.models import Turn

if TYPE_CHECKING:
    from spacy.tokens import Token

Found = list[tuple[Prop, str, str]]  # (property, value, rule kind)


@dataclass
class Clause:
    """A predicate with the dependents the rules read, and who it is about."""

    state: ExtractState
    pred: Token
    subject: Subject
    speaker: str
    other: str
    turn: Turn

    @cached_property
    def lemma(self) -> str:
        return clauses.lemma(self.pred)

    @cached_property
    def kids(self) -> list[Token]:
        return list(self.pred.children)

    def child(self, *deps: str) -> Token | None:
        return next((c for c in self.kids if c.dep_ in deps), None)

    @cached_property
    def dobj(self) -> Token | None:
        return self.child("dobj", "obj")

    @cached_property
    def attr(self) -> Token | None:
        return self.child("attr", "oprd")

    @cached_property
    def acomp(self) -> Token | None:
        return self.child("acomp")

    @cached_property
    def xcomp(self) -> Token | None:
        return self.child("xcomp")

    @cached_property
    def preps(self) -> list[Token]:
        return [c for c in self.kids if c.dep_ in ("prep", "agent", "dative")]

    @cached_property
    def prts(self) -> list[Token]:
        return [c for c in self.kids
                if c.dep_ == "prt" or (c.dep_ == "advmod" and (self.lemma, c.lower_) in lexicon.PHRASES)]

    @cached_property
    def copula(self) -> bool:
        """A copula or state verb ("be", "seem", "get" + adjective) or a bare auxiliary root."""
        return (self.lemma in ("be", "become", "seem", "feel", "stay", "remain")
                or (self.lemma == "get" and self.acomp is not None)
                or (self.pred.pos_ == "AUX" and self.pred.dep_ == "ROOT"))

    @cached_property
    def value(self) -> str:
        return value_of(self.pred, self.dobj, self.xcomp, self.preps)


def pobj(prep: Token) -> Token | None:
    return next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)


@dataclass(frozen=True)
class Rule:
    name: str  # what the rule matches, as a reader would say it
    lemmas: frozenset[str] | None  # predicate lemmas the rule is for (None: any)
    apply: Callable[[Clause], Found | None]  # None: no decision, try the next rule


def property_of(state: ExtractState, pred: Token, subject: Subject, speaker: str, other: str,
                turn: Turn) -> Found:
    """The first decision of ``RULES`` for the clause of ``pred`` (``subject`` may be renamed:
    "my favorite book is X" is the owner's)."""
    clause = Clause(state, pred, subject, speaker, other, turn)
    for rule in RULES:
        if rule.lemmas is None or clause.lemma in rule.lemmas:
            found = rule.apply(clause)
            if found is not None:
                return found
    return []


def names_a_place(prop: Prop, value: str, pred: Token) -> bool:
    """A place relation's value holds a noun or a name that is no time, and names no manner:
    "could actually live there", "always lived here", "next week", "like a local" name no place;
    a hometown is a name ("from Ohio", not "from work").
    The value's words are looked up in its sentence (values may be reordered: "lived always"); a
    word the sentence lacks counts as a noun."""
    if not (prop.relation and prop.value_type == "place"):
        return True
    if value.lower().split()[:1] in (["like"], ["as"]):  # a manner: "live like a local"
        return False
    tokens = {t.lower_: t for t in pred.sent}
    said = [tokens.get(w.lower()) for w in value.split()]
    if prop.name == "hometown":  # "came home from work", "I come from a big family": no town named
        return any(t is not None and t.pos_ == "PROPN" for t in said)
    return any(t is None or (t.pos_ in ("NOUN", "PROPN") and t.ent_type_ not in ("DATE", "TIME"))
               for t in said)


# --------------------------------------------------------------------------- the rules
def _favorite(c: Clause) -> Found | None:
    """"my favorite book is X" and "X is my favorite book" -> <owner> favorite_book X."""
    subj = clauses.subject_of(c.pred)
    if subj is None or c.attr is None:
        return None
    kind, value = subj, c.attr  # "my favorite book is Dune"
    if not _says_favorite(kind):
        kind, value = c.attr, subj  # "Dune is my favorite book"
        if not _says_favorite(kind) or value.pos_ == "PRON":
            return None  # "it is my favorite": what "it" is, the clause does not say
    owner = possessor(kind, c.speaker, c.other)
    if owner is None and kind is c.attr:
        return None  # "Sushi is a favorite food here": no one's favourite said
    c.subject.name, c.subject.type = owner or c.subject.name, "person"
    return [(Prop(f"favorite_{kind.lemma_.lower()}"), clauses.phrase(value), "pattern")]


def _says_favorite(noun: Token) -> bool:
    return any(t.lower_ in ("favorite", "favourite") for t in noun.children)


def _looking_forward(c: Clause) -> Found | None:
    """"can't wait for the concert": looks forward to the concert (nothing without an object)."""
    if not clauses.is_eager(c.pred):
        return None
    return [(lexicon.LOOKS_FORWARD_TO, clauses.phrase(o), "phrase") for p in c.preps
            if p.lower_ == "for" and (o := pobj(p)) is not None][:1]


def _feel_aux(c: Clause) -> Found | None:
    """"made me feel accepted": feels <predicate>."""
    if any(t.lemma_ == "feel" and t.dep_ in ("aux", "auxpass") for t in c.kids):
        return [(lexicon.FEELS, c.pred.text, "pattern")]
    return None


def _copula_attr(c: Clause) -> Found | None:
    """copula + noun: occupation, identity, fan of, member of, age, description; a date is no
    noun ("my last day is the 30th": when it takes place)."""
    if not c.copula or c.attr is None or c.attr.ent_type_ in ("DATE", "TIME"):
        return None
    return _copula_noun(c.attr, c.subject, c.lemma)


def _copula_acomp(c: Clause) -> Found | None:
    """copula + adjective: feels, health, relationship status, adjective + preposition."""
    return _copula_adj(c.acomp, c.subject) if c.copula and c.acomp is not None else None


def _copula_phrase(c: Clause) -> Found | None:
    """copula + lexicon phrase preposition ("is into jazz")."""
    if not c.copula:
        return None
    for prep in c.preps:
        rule = lexicon.PHRASES.get((c.lemma, prep.lower_))
        obj = pobj(prep)
        if rule and obj is not None:
            return [(rule, clauses.phrase(obj), "phrase")]
    return None


def _copula_dated(c: Clause) -> Found | None:
    """"the first lesson was last Tuesday (at a little studio)": when (and where) it took place."""
    if not c.copula or c.lemma != "be" or c.subject.type == "person":
        return None
    when = [t for t in c.kids if t.ent_type_ in ("DATE", "TIME") and t.dep_ in ("npadvmod", "advmod", "attr")]
    if not when:
        return None
    where = [f"{p.lower_} {clauses.phrase(o)}" for p in c.preps if (o := pobj(p)) is not None
             and o.ent_type_ not in ("DATE", "TIME")]
    return [(lexicon.TAKES_PLACE, " ".join(where) or clauses.join(list(when[0].subtree)), "pattern")]


def _copula_bare(c: Clause) -> Found | None:
    """any other "be" / auxiliary: nothing ("that's it")."""
    return [] if c.copula and (c.lemma == "be" or c.pred.pos_ == "AUX") else None


def _participle_phrase(c: Clause) -> Found | None:
    """past participle + lexicon preposition ("married to X", "interested in Y")."""
    if c.pred.tag_ != "VBN":
        return None
    for prep in c.preps:
        rule = lexicon.ADJ_PREP.get((c.pred.lower_, prep.lower_))
        obj = pobj(prep)
        if rule and obj is not None:
            return [(rule, clauses.phrase(obj), "phrase")]
    return None


def _passive_feeling(c: Clause) -> Found | None:
    """"you must be thrilled": a person's passive state with no object is a feeling."""
    if c.pred.tag_ != "VBN" or c.dobj is not None or c.subject.type != "person" or c.lemma in lexicon.VERBS:
        return None
    if any(t.dep_ == "auxpass" and t.lemma_ in ("be", "get", "feel") for t in c.kids):
        return [(lexicon.FEELS, c.pred.text, "pattern")]
    return None


def _possession(c: Clause) -> Found | None:
    """"I have a dog named Oliver": the kin/pet relation (+ the pet's species), adopt/rescue."""
    dobj = c.dobj
    if dobj is None or dobj.lemma_.lower() not in lexicon.KIN:
        return None
    out: Found = []
    kin = lexicon.KIN[dobj.lemma_.lower()]
    name = name_of(dobj, c.state, c.subject.name)
    if name:
        out.append((kin, name, "pattern"))
        if kin is lexicon.PET:
            c.state.drafts.append(Draft(name, "animal", "species", dobj.lemma_.lower(), c.turn,
                                        conf("pattern", c.subject.resolution)))
    else:
        out.append((kin, clauses.phrase(dobj, name=True), "pattern"))  # "a brother, which ...": brother
    if c.lemma in ("adopt", "rescue"):
        out.append((lexicon.VERBS[c.lemma], name or clauses.phrase(dobj), "lexicon"))
    return out


def _particle_phrase(c: Clause) -> Found | None:
    """verb + particle in the lexicon ("sign up for X" -> enrolls_in X)."""
    for prt in c.prts:
        rule = lexicon.PHRASES.get((c.lemma, prt.lower_))
        if rule:
            # "guess what, I signed up for X": a pronoun object is a parse slip, take X
            real_dobj = c.dobj if c.dobj is not None and c.dobj.pos_ != "PRON" else None
            target = real_dobj or next((pobj(p) for p in c.preps if pobj(p) is not None), None) or c.xcomp
            if rule.value_type == "place" and target is not None and target.lemma_.lower() in lexicon.KIN:
                return family_members(target, c.preps)  # "I grew up in a family of five": no place
            return [(rule, clauses.phrase(target) if target is not None else prt.head.lemma_ + " " + prt.text,
                     "phrase")]
    return None


def _object_phrase(c: Clause) -> Found | None:
    """verb + object noun in the lexicon ("take a class", "join a club") with its details."""
    if c.dobj is None:
        return None
    rule = lexicon.PHRASES.get((c.lemma, c.dobj.lemma_.lower()))
    if not rule:
        return None
    detail = [f"{p.lower_} {clauses.phrase(o)}" for p in c.preps if (o := pobj(p)) is not None
              and o.ent_type_ not in ("DATE", "TIME")]
    return [(rule, " ".join([clauses.phrase(c.dobj), *detail]), "phrase")]


def _travelling(c: Clause) -> Found | None:
    """travel verbs: destination, attends, means of transport, "go camping"."""
    return _travel(c.pred, c.dobj, c.preps) or None


def _prep_phrase(c: Clause) -> Found | None:
    """verb + preposition in the lexicon ("work at X", "live in Y")."""
    for prep in c.preps:
        rule = lexicon.PHRASES.get((c.lemma, prep.lower_))
        obj = pobj(prep)
        if rule and obj is not None and obj.ent_type_ not in ("DATE", "TIME"):
            if rule.value_type == "place" and _moves_on(c.pred):
                return None  # "move on to the next step": what comes next, no place
            if rule is lexicon.INTERESTED_IN and obj.pos_ != "PROPN" and any(
                    t.dep_ == "det" and t.lower_ in ("a", "an", "the") for t in obj.children):
                # "got into an accident", "into a bad spot": something that happened, no interest
                return [(_GETS_INTO, clauses.phrase(obj), "phrase")]
            if rule.value_type == "place" and obj.lemma_.lower() in lexicon.KIN:
                return family_members(obj, c.preps)  # "I come from a family with 3 sisters": kin, no place
            return [(rule, clauses.phrase(obj), "phrase")]
    return None


_GETS_INTO = Prop("gets_into", event=True)  # what one got into once: an accident, a fight


def _moves_on(pred: Token) -> bool:
    """The verb goes "on" ("move on to", "go on to"): it says what comes next, not where to."""
    return any(t.lower_ == "on" and (t.dep_ in ("prt", "advmod") or (t.dep_ == "prep" and pobj(t) is None))
               for t in pred.children)  # a bare "on" is a particle, whatever label the parse gives it


def family_members(group: Token, verb_preps: list[Token]) -> Found:
    """The kin inside a family phrase ("a family with 3 sisters and a brother" -> sibling: 3
    sisters, sibling: brother), each with its number; the "with" may hang on the verb."""
    out: Found = []
    preps = [*group.children, *(p for p in verb_preps if p.i > group.i)]
    for prep in (c for c in preps if c.dep_ == "prep" and c.lower_ in ("with", "of")):
        member = pobj(prep)
        members = [member, *member.conjuncts] if member is not None else []
        for m in members:
            kin = lexicon.KIN.get(m.lemma_.lower())
            if kin is not None and kin.value_type == "person" and m.lemma_.lower() != group.lemma_.lower():
                own = [t for t in m.children if t.dep_ in ("nummod", "amod", "compound") and t.i < m.i]
                out.append((kin, clauses.join([*own, m]), "pattern"))
    return out


def _passive_name(c: Clause) -> Found | None:
    """"our band is called The Gulls", "my dog is named Rex": the name the subject goes by."""
    if not clauses.names_passively(c.pred):
        return None
    name = c.attr
    if name is None or name.pos_ != "PROPN":
        return None
    return [(lexicon.IS_CALLED, name.doc[name.left_edge.i : name.right_edge.i + 1].text, "pattern")]


def _lexicon_verb(c: Clause) -> Found | None:
    """a verb with a lexicon property ("I paint" -> paints: paint); abstract "make" and passive
    "made of" create nothing; a relation needs a value."""
    prop = lexicon.VERBS.get(c.lemma)
    # what is made: the object, or the noun a relative clause hangs on ("the bowl I made")
    made = c.dobj if c.dobj is not None else (c.pred.head if c.pred.dep_ == "relcl" else None)
    if c.lemma == "make" and (made is None or made.lemma_.lower() in lexicon.ABSTRACT_MAKE):
        prop = None  # "make a difference", "make it to the final": nothing made
    if prop is lexicon.CREATES and any(t.dep_ == "auxpass" for t in c.kids):
        prop = None
    if prop is not None and prop.value_type == "place" and (
            _moves_on(c.pred)  # "move on to the next draft": what comes next, no new home
            # "driving innovative content", "return the book", "head the team": no trip
            or (c.dobj is not None and c.dobj.ent_type_ not in ("GPE", "LOC", "FAC"))):
        prop = None
    if prop is not None and (c.value or not prop.relation):
        return [(prop, c.value or c.pred.lemma_, "lexicon")]
    return None


def _get_object(c: Clause) -> Found | None:
    """"got a new car" -> gets; "we've got" = has."""
    if c.dobj is None or c.dobj.pos_ not in ("NOUN", "PROPN") or not c.value:
        return None
    perfect = any(t.dep_ == "aux" and t.lemma_ == "have" for t in c.kids)
    return [(lexicon.HAS if perfect else lexicon.GETS, c.value, "lexicon")]


def _verb_lemma(c: Clause) -> Found | None:
    """any other contentful verb with a value: the verb's own lemma as the property."""
    plain = c.lemma not in TRIVIAL_VERBS or _handed(c)
    if c.pred.pos_ == "VERB" and plain and c.lemma.isalpha() and c.value:
        return [(Prop(c.lemma), c.value, "fallback")]
    return None


def _handed(c: Clause) -> bool:
    """"brought me a live mouse": bringing a thing to someone states a fact ("tell him good
    game", "took me ages" do not)."""
    return c.lemma == "bring" and any(k.dep_ == "dative" for k in c.kids) and c.dobj is not None \
        and c.dobj.pos_ in ("NOUN", "PROPN")


RULES: tuple[Rule, ...] = (
    Rule("'my favorite X is Y'", frozenset({"be"}), _favorite),
    Rule("feel as auxiliary", None, _feel_aux),
    Rule("can't wait for X", frozenset({"wait"}), _looking_forward),
    Rule("copula + noun", None, _copula_attr),
    Rule("copula + adjective", None, _copula_acomp),
    Rule("copula + lexicon preposition", None, _copula_phrase),
    Rule("dated copula (takes place)", None, _copula_dated),
    Rule("bare copula / auxiliary: nothing", None, _copula_bare),
    Rule("participle + lexicon preposition", None, _participle_phrase),
    Rule("passive naming: is called", frozenset({"call", "name"}), _passive_name),
    Rule("passive state of a person: feels", None, _passive_feeling),
    Rule("have / adopt a kin or pet noun", frozenset({"have", "own", "adopt", "get", "rescue"}), _possession),
    Rule("verb + lexicon particle", None, _particle_phrase),
    Rule("verb + lexicon object noun", None, _object_phrase),
    Rule("travel verb", lexicon.TRAVEL_VERBS, _travelling),
    Rule("verb + lexicon preposition", None, _prep_phrase),
    Rule("lexicon verb", None, _lexicon_verb),
    Rule("get + object", frozenset({"get"}), _get_object),
    Rule("other verb: its lemma", None, _verb_lemma),
)


# --------------------------------------------------------------------------- values and patterns
def value_of(pred: Token, dobj: Token | None, xcomp: Token | None, preps: list[Token]) -> str:
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
            and c.ent_type_ not in ("DATE", "TIME") and c.i > pred.i  # what came before is another clause's
            and not clauses.addressed(c)]  # "sleep well, new museum lady": whom it was said to
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
    if noun in lexicon.OCCUPATIONS or _agent_noun(attr):
        return [(lexicon.OCCUPATION, clauses.phrase(attr), "pattern")]
    if _bare_gerund(attr):
        return []  # "I was away fishing": what they were doing, not what they are
    return [(lexicon.IDENTITY, clauses.phrase(attr), "pattern")]


def _bare_gerund(attr: Token) -> bool:
    """A singular "-ing" noun with no determiner, possessive or number: an activity the subject
    was busy with ("was out fishing"), not a kind of person ("a darling", "the king")."""
    return attr.tag_ == "NN" and attr.lower_.endswith("ing") and not any(
        c.dep_ in ("det", "poss", "nummod") for c in attr.children)


def _agent_noun(attr: Token) -> bool:
    """An agent noun read as an occupation ("a welder", "a cellist"): not kin ("a great mother"),
    not in ``NOT_OCCUPATION`` ("a teenager"), and not judged ("a better gift giver" is praise)."""
    noun = attr.lemma_.lower()
    return (attr.pos_ == "NOUN" and noun.endswith(("er", "or", "ist", "ian"))
            and noun not in lexicon.NOT_OCCUPATION and noun not in lexicon.KIN
            and not any(c.dep_ == "amod" and c.lemma_.lower() in lexicon.EVALUATIVE for c in attr.children))


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
            if prep.lower_ == "into" and not (place or obj.pos_ == "PROPN"):
                continue  # "get back into my writing routine": a habit taken up again, no trip
            if _moves_on(pred):
                continue  # "go on to win the cup": what came next
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
