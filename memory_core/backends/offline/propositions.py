"""A clause as a proposition a person would write down: "adds Little Women to watch list".

``complement`` is the rest of a clause after its subject, in the speakers' world: the verb's
objects, particles, prepositional phrases and complements in their order, first and second
person rewritten to the speakers ("my kids" -> "Melanie's kids", "you" -> "Caroline"), with
what carries no fact dropped (auxiliaries, negation — that is the record's modality —,
discourse words such as "really", "just", "kinda", vocatives, interjections, the subject,
clauses of their own, and time expressions, which are the record's valid time).

``verb_property`` names the property of a verb no lexicon rule knows by the verb itself, in
the third person with its particle ("signs up", "loses"), so that "entity property value"
reads as a sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_core import timeexpr
from memory_core.backends.offline import clauses
from memory_core.construct import lexicon

if TYPE_CHECKING:
    from collections.abc import Sequence

    from spacy.tokens import Token

MAX_WORDS = 14
# adverbs that colour a statement but state nothing
DISCOURSE = frozenset({
    "really", "just", "actually", "so", "also", "too", "definitely", "totally", "even", "still",
    "kinda", "sorta", "pretty", "literally", "honestly", "basically", "truly", "super", "very",
    "absolutely", "seriously", "certainly", "surely", "obviously", "probably", "maybe", "perhaps",
    "already", "ever", "anyway", "though", "quite", "lately", "recently", "finally", "now",
    "here", "there", "then", "well", "yeah", "yes", "oh", "wow", "hey",
})
_SKIP_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl", "aux", "auxpass", "neg", "mark", "punct",
                        "intj", "cc", "conj", "advcl", "parataxis", "ccomp", "discourse", "meta", "dep",
                        "preconj", "appos"})
# adverbs of frequency: they say how often the fact holds, and stay in its value
_HOW_OFTEN = frozenset({"always", "usually", "often", "frequently", "sometimes", "occasionally", "rarely",
                        "seldom", "hardly", "scarcely", "never", "normally", "generally", "regularly",
                        "constantly", "daily", "weekly"})
_FIRST = frozenset({"i", "me", "myself", "we", "us", "ourselves"})
_SECOND = frozenset({"you", "yourself", "yourselves"})
_POSS_FIRST = frozenset({"my", "our", "mine", "ours"})
_POSS_SECOND = frozenset({"your", "yours"})
_ES = ("s", "sh", "ch", "x", "z", "o")
_IRREGULAR_3SG = {"be": "is", "have": "has", "do": "does", "go": "goes"}


def third_person(lemma: str) -> str:
    """"lose" -> "loses", "try" -> "tries", "watch" -> "watches"."""
    if lemma in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[lemma]
    if lemma.endswith("y") and len(lemma) > 2 and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    if lemma.endswith(_ES):
        return lemma + "es"
    return lemma + "s"


def verb_property(pred: Token) -> str:
    """The property named by a verb: third person + particle, snake_case ("signs_up")."""
    name = third_person(clauses.lemma(pred))
    prt = next((c.lower_ for c in pred.children if c.dep_ == "prt"), None)
    return f"{name}_{prt}" if prt else name


def complement(pred: Token, speaker: str, other: str, subject: str, *, with_verb: bool = False,
               max_words: int = MAX_WORDS) -> str:
    """The clause of ``pred`` after its subject, as words about the speakers (see module doc).

    A possessive naming the subject itself is dropped ("Melanie loves kids" for "I love my kids"
    said by Melanie keeps "Melanie's kids": kin stay owned); ``with_verb`` keeps the verb (for
    an imperative: "keep going after Jon's dreams")."""
    skip: set[int] = set()
    subj = next((c.i for c in pred.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    named = clauses.misread_name(pred)
    if named is not None:  # "Ledgerly announced layoffs": the subject, whatever the tagger called it
        skip.update(t.i for t in named.subtree)
    for child in pred.children:
        dated = child.dep_ in ("npadvmod", "advmod") and (child.ent_type_ in ("DATE", "TIME")
                                                           or _names_a_time(child))
        # "Six songs, we called it ...": a noun put before the subject is a topic, not the object
        dated = dated or (child.dep_ == "npadvmod" and subj is not None and child.i < subj)
        # "when my team won first place": the wh-word ties the clause to another, it is no part of the fact
        dated = dated or (child.dep_ == "advmod" and child.tag_ == "WRB" and child.i < pred.i)
        particle = child.dep_ == "prt" and not with_verb
        # "I barely recognize it", "I'd rather not go": a lone adverb before the verb says how
        # the verb holds, it is no part of what it is about
        before_verb = (child.dep_ == "advmod" and child.i < pred.i and not with_verb
                       and child.lower_ not in _HOW_OFTEN  # "I rarely swim": how often is part of the fact
                       and not any(child.children))
        if child.dep_ in _SKIP_DEPS or particle or _is_discourse(child) or dated or before_verb \
                or clauses.addressed(child):
            skip.update(t.i for t in child.subtree)
    for t in pred.subtree:  # "joined the choir I kept raving about": the speaker's remark on it goes
        if t.i != pred.i and clauses.said_by_speakers(t):
            skip.update(x.i for x in t.subtree)
    kept: list[tuple[Token, str]] = []
    for t in pred.subtree:
        if t.i in skip or (t.i == pred.i and not with_verb):
            continue
        if t.is_punct or clauses.time_word(t):
            continue
        if t.dep_ in ("advmod", "intj") and t.lower_ in DISCOURSE:
            continue
        if clauses.is_vocative(t) or t.dep_ in ("intj",):
            continue
        kept.append((t, _rewrite(t, speaker, other, subject)))
    # a preposition whose object went (a time: "ran 6 km on Saturday") goes with it
    kept = [(t, w) for t, w in kept if not clauses.orphaned(t, {k.i for k, _ in kept})]
    kept = [(t, w) for t, w in kept if w]
    while kept and kept[0][1].lower() in ("to", "that", "and", "but", "or", "a", "an", "the"):
        kept = kept[1:]
    cut, count = [], 0
    for t, w in kept:  # at most max_words words ...
        count += len(w.split())
        if count > max_words:
            break
        cut.append((t, w))
    ids = {t.i for t, _ in cut}  # ... and no dangling "of" / "in" where the cut fell
    while cut and (cut[-1][1].lower() in ("to", "and", "but", "or", "of", "for", "with", "a", "the")
                   or clauses.orphaned(cut[-1][0], ids)):
        cut.pop()
        ids = {t.i for t, _ in cut}
    text = " ".join(w for _, w in cut)
    return text.replace(" 's", "'s").replace(" n't", "n't")


# the words of a time the tagger may not call one ("last Fri", "every other weekend")
_TIME_WORDS = frozenset({*timeexpr.WEEKDAYS, *(d[:3] for d in timeexpr.WEEKDAYS), "tues", "thurs", "weekend",
                         "week", "month", "year", "day", "night", "morning", "evening", "afternoon",
                         "yesterday", "today", "tonight", "tomorrow"})


def _names_a_time(tok: Token) -> bool:
    """A noun-phrase adverbial whose head is a time word ("last Fri", "this weekend")."""
    return tok.dep_ == "npadvmod" and tok.lower_.rstrip(".") in _TIME_WORDS


def _is_discourse(tok: Token) -> bool:
    """A word that frames the clause without adding to it: a known filler ("really", "honestly"),
    or one lone word that opens the sentence before a comma ("Nice, my sister loves cake")."""
    if any(True for _ in tok.children):
        return False
    if tok.dep_ in ("advmod", "intj") and tok.lower_ in DISCOURSE:
        return True
    doc = tok.doc
    return (tok.dep_ in ("advmod", "intj", "dep") and tok.i == tok.sent.start and tok.i + 1 < len(doc)
            and doc[tok.i + 1].text == "," and tok.head.i > tok.i + 1)


def _rewrite(t: Token, speaker: str, other: str, subject: str) -> str:
    low = t.lower_
    doc = t.doc
    if (t.i + 1 < len(doc) and doc[t.i + 1].text == "-" and not t.whitespace_) or (
            t.i > 0 and doc[t.i - 1].text == "-" and not doc[t.i - 1].whitespace_):
        return t.text  # part of a word: "me-time"
    if low in _FIRST:
        return speaker
    if low in _SECOND:
        return other
    if low in _POSS_FIRST or low in _POSS_SECOND:
        owner = speaker if low in _POSS_FIRST else other
        head = t.head
        if owner == subject and not _is_kin(head):
            return ""
        return f"{owner}'s"
    return t.text


def _said_of_one(t: Token) -> bool:
    """A verb (or its auxiliary) of a clause whose subject is "I" or "you": rewritten to a name, it
    agrees with one person ("that you are helping" -> "that Ben is helping")."""
    head = t.head if t.dep_ in ("aux", "auxpass") else t
    return t.pos_ in ("AUX", "VERB") and any(
        c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in ("i", "you") for c in head.children)


def _is_kin(tok: Token) -> bool:
    return tok.lemma_.lower() in lexicon.KIN


_CONTRACTED = {"'s": "is", "'re": "are", "'m": "am", "'ve": "have", "'ll": "will", "'d": "would",
               "ca": "can", "wo": "will"}
_AGREE = {"am": "is", "'m": "is", "are": "is", "'re": "is", "have": "has", "'ve": "has", "were": "was",
          "do": "does"}
_VIEW_ENTS = frozenset({"", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE", "NORP"})
# nouns for someone — a person, an occupation, an animal: a clause whose subject is one of them,
# pointed at ("the waiter", "this guy"), says what they did, not what the speaker thinks
_SOMEONE = lexicon.PERSON_NOUNS | lexicon.OCCUPATIONS | lexicon.ANIMAL_NOUNS


def is_view_subject(subj: Token) -> bool:
    """A subject that is a thing or an activity rather than someone ("Family time matters to me",
    "Talking about it is crucial", "It's freeing to express myself"): the clause is the
    speaker's view of it."""
    if subj.dep_ == "csubj":
        return True
    if subj.lower_ == "it":  # extraposed: "it's important to me that ...", "it's freeing to ..."
        head = subj.head
        return any(c.dep_ in ("xcomp", "ccomp") and c.i > head.i for c in head.children) and (
            any(c.dep_ in ("acomp", "attr") for c in head.children) or head.pos_ == "ADJ"
            or head.tag_ == "VBG")
    if subj.pos_ != "NOUN" or subj.ent_type_ not in _VIEW_ENTS or subj.lemma_.lower() in lexicon.KIN:
        return False
    if subj.lemma_.lower() in _SOMEONE and any(c.dep_ in ("det", "poss") and c.lower_ not in ("a", "an")
                                               for c in subj.children):
        return False  # "the waiter brought me a pastry": what someone did ("guys have it easier" is a view)
    if subj.i > subj.head.i:  # "Here's the bowl ...": a presentation, not a view
        return False
    if clauses.group_pronoun(subj) is not None:
        return False  # "you guys are on fire": people, not a thing
    return not any(c.dep_ == "poss" and c.lower_ in ("your", "his", "her", "their") for c in subj.children)


def view_text(pred: Token, subj: Token, speaker: str, other: str) -> str:
    """The clause as said, first and second person rewritten: "family time matters to Melanie"."""
    keep: set[int] = set()
    for child in pred.children:
        if child.dep_ in ("advcl", "parataxis", "conj", "cc", "punct", "intj", "mark", "discourse") or \
                _is_discourse(child) or clauses.is_vocative(child):
            continue
        keep.update(t.i for t in child.subtree)
    keep.add(pred.i)
    if subj.head.i != pred.i and subj.lower_ != "it":  # a conjunct: "X has made me ... and given me"
        keep.update(t.i for t in subj.subtree)
        aux = [c for c in subj.head.children if c.dep_ in ("aux", "auxpass") and c.i < subj.head.i]
        keep.update(a.i for a in aux)
    words = []
    ordered = sorted(keep)
    late = [c for c in pred.children if c.dep_ == "xcomp" and c.i > pred.i]
    if subj.lower_ == "it" and late:  # "it's freeing to express myself" -> "to express myself is freeing"
        keep.discard(subj.i)
        moved = {t.i for c in late for t in c.subtree}
        ordered = [i for i in sorted(keep) if i in moved] + [i for i in sorted(keep) if i not in moved]
    person = subj.lower_ in ("i", "you", "we")
    for i in ordered:
        t = pred.doc[i]
        if (person and t.head.i == pred.i and t.dep_ in ("aux", "auxpass")) or (person and t.i == pred.i) \
                or _said_of_one(t):
            agreed = _AGREE.get(t.lower_) or (third_person(t.lower_) if t.tag_ == "VBP" and t.pos_ == "VERB"
                                              else None)
            if agreed:
                words.append(agreed)
                continue
        if t.is_punct or (t.dep_ in ("advmod", "intj") and t.lower_ in DISCOURSE) or clauses.is_vocative(t):
            continue
        # a contracted verb is written out; a possessive ("everyone's", tag POS) stays as it is
        if t.lower_ in _CONTRACTED and t.pos_ in ("AUX", "VERB", "PART") and t.tag_ != "POS":
            words.append(_CONTRACTED[t.lower_])
            continue
        words.append(_rewrite(t, speaker, other, ""))
    text = " ".join(w for w in words if w)
    return " ".join(text.split()[:MAX_WORDS + 4]).replace(" 's", "'s").replace(" n't", " not")


_NOT_ADVICE = frozenset({"thank", "let", "see", "look", "check", "guess", "imagine", "wish", "say", "tell",
                         "excuse", "pardon", "forgive", "mind", "bet", "hear", "know", "congratulate",
                         "welcome", "hang", "wait", "hold", "talk", "catch", "chat", "appreciate"})
_LEAD_INS = frozenset({"so", "just", "please", "and", "but", "also", "oh", "now", "then", "definitely",
                       "always", "never", "really", "hey", "plus", "still", "well"})


def is_imperative(pred: Token) -> bool:
    """"Keep going for your dreams!", "Don't give up": a bare verb opening its sentence, no subject."""
    if pred.tag_ != "VB" or pred.pos_ != "VERB" or clauses.lemma(pred) in _NOT_ADVICE:
        return False
    if pred.dep_ == "conj":
        return is_imperative(pred.head) if pred.head.i != pred.i else False
    if pred.dep_ != "ROOT" or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in pred.children):
        return False
    aux = [c for c in pred.children if c.dep_ == "aux"]
    if any(a.lower_ not in ("do", "don't") for a in aux):
        return False
    for tok in pred.sent:
        if tok.i == pred.i:
            return True
        if tok.is_punct or tok.pos_ == "INTJ" or clauses.is_vocative(tok) or tok.lower_ in _LEAD_INS or \
                tok.dep_ in ("aux", "neg"):
            continue
        return False
    return False


def advice_text(pred: Token, speaker: str, other: str, *, to: str | None = None,
                and_then: Sequence[Token] = ()) -> str:
    """"Keep going for your dreams" (Gina to Jon) -> "Jon to keep going for Jon's dreams";
    ``to``: whom it was told (default: the other speaker); ``and_then``: verbs joined to it
    ("rest and ice it")."""
    negated = any(c.dep_ == "neg" for c in pred.children)
    first = _verb_phrase(pred, speaker, other)
    if not first:
        return ""
    said = [first, *(body for v in and_then if (body := _verb_phrase(v, speaker, other)))]
    return f"{other if to is None else to} {'not ' if negated else ''}to {' and '.join(said)}"


def _verb_phrase(pred: Token, speaker: str, other: str) -> str:
    """The clause with its verb, lower-cased unless a name ("Rest more" -> "rest more")."""
    body = complement(pred, speaker, other, "", with_verb=True)
    first, _, rest = body.partition(" ")
    verb = first if pred.ent_type_ or pred.pos_ == "PROPN" else first.lower()
    return f"{verb} {rest}".strip()
