"""Dependency-tree helpers for extraction: clauses, phrases, modality, conditions, time.

Everything here reads one spaCy ``Doc``; nothing knows about records or episodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from memory_core.backends.offline.nlp import BARE_CONTRACTION_RE, known_word
from memory_core.construct import lexicon
from memory_core.construct.sessions import TITLE_RE
from memory_core.contracts import ASSISTANT_ROLES
from memory_core.models import Modality

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis", "xcomp", "relcl"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj"})
OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "dative", "obj"})
# prepositions saying where something is ("in Tartu", "at the studio")
WHERE_PREPS = frozenset({"in", "at", "near", "around", "inside", "outside"})
_DROP_DEPS = frozenset({"advcl", "punct", "mark", "parataxis", "appos", "ccomp"})
_LEADING = frozenset({"a", "an", "the", "some", "any", "this", "that", "these", "those", "my", "our",
                      "your", "such", "so", "really", "very", "just", "all", "also"})
_MODAL_FUTURE = frozenset({"will", "'ll", "shall", "wo"})
_MODAL_HYPO = frozenset({"would", "'d", "could", "might", "may", "should"})


def object_of(tok: Token, preps: frozenset[str]) -> bool:
    """The token is the object of one of these prepositions ("lives in Tartu": Tartu, "in")."""
    return tok.dep_ == "pobj" and tok.head.lower_ in preps


# past forms of irregular verbs (past and participle) the small model may leave unlemmatised
# ("I forgot", "she swam" tagged VBP) -> the base form
_IRREGULAR_FORMS = (
    "arise arose arisen|awake awoke awoken|bear bore borne|beat beat beaten|become became become|"
    "begin began begun|bend bent bent|bet bet bet|bind bound bound|bite bit bitten|bleed bled bled|"
    "blow blew blown|break broke broken|breed bred bred|bring brought brought|build built built|"
    "burn burnt burnt|buy bought bought|catch caught caught|choose chose chosen|cling clung clung|"
    "come came come|creep crept crept|deal dealt dealt|dig dug dug|draw drew drawn|dream dreamt dreamt|"
    "drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed fed|feel felt felt|"
    "fight fought fought|find found found|flee fled fled|fly flew flown|forbid forbade forbidden|"
    "forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|"
    "go went gone|grind ground ground|grow grew grown|hang hung hung|have had had|hear heard heard|"
    "hide hid hidden|hold held held|keep kept kept|kneel knelt knelt|know knew known|lay laid laid|"
    "lead led led|lean leant leant|leap leapt leapt|learn learnt learnt|leave left left|lend lent lent|"
    "lie lay lain|light lit lit|lose lost lost|make made made|mean meant meant|meet met met|"
    "overcome overcame overcome|pay paid paid|ride rode ridden|ring rang rung|rise rose risen|run ran run|"
    "say said said|see saw seen|seek sought sought|sell sold sold|send sent sent|shake shook shaken|"
    "shine shone shone|shoot shot shot|show showed shown|shrink shrank shrunk|sing sang sung|"
    "sink sank sunk|sit sat sat|sleep slept slept|slide slid slid|speak spoke spoken|spend spent spent|"
    "spin spun spun|spit spat spat|spring sprang sprung|stand stood stood|steal stole stolen|"
    "stick stuck stuck|sting stung stung|stink stank stunk|strike struck struck|swear swore sworn|"
    "sweep swept swept|swim swam swum|swing swung swung|take took taken|teach taught taught|"
    "tear tore torn|tell told told|think thought thought|throw threw thrown|understand understood understood|"
    "wake woke woken|wear wore worn|weave wove woven|weep wept wept|win won won|wind wound wound|"
    "withdraw withdrew withdrawn|write wrote written"
)
_IRREGULAR = {form: base for entry in _IRREGULAR_FORMS.split("|") for base, *forms in [entry.split()]
              for form in forms if form != base}
_IRREGULAR.update({"started": "start", "finished": "finish", "joined": "join", "visited": "visit",
                   "adopted": "adopt", "moved": "move", "tried": "try", "signed": "sign"})
_NOT_LEMMA_AGAIN = frozenset({"found", "left", "ground", "wound", "lay", "saw", "bore", "felt", "lit"})
_SHORT_CVC = re.compile(r"^[^aeiouy]*[aeiou][^aeiouwxy]$")  # "hat", "cod", "vot": one short syllable


def lemma(tok: Token) -> str:
    """The token's lemma, repairing past forms the small model leaves as they are ("Lost") and
    the final "e" its rules take from a long vowel ("staring", "hopes")."""
    low = tok.lower_
    lem = tok.lemma_.lower()
    if lem == low and low in _IRREGULAR and (tok.pos_ in ("VERB", "AUX") or low not in _NOT_LEMMA_AGAIN):
        return _IRREGULAR[low]
    ending = {"VBD": "ed", "VBN": "ed", "VBG": "ing", "VBZ": "es"}.get(tok.tag_)
    if ending and low == lem + ending and _SHORT_CVC.match(lem):
        return lem + "e"  # "hated" -> "hat", "staring" -> "star" by the rule; a short vowel doubles
    return lem


def is_past_form(tok: Token) -> bool:
    low = tok.lower_
    return low in _IRREGULAR or low == "been" or (tok.pos_ == "VERB" and low.endswith("ed"))


def names_passively(pred: Token) -> bool:
    """"is called", "was named": a passive naming verb."""
    return lemma(pred) in ("call", "name") and any(c.dep_ == "auxpass" for c in pred.children)


def is_question(sent: Span) -> bool:
    return sent.text.rstrip().endswith("?")


# what ends a statement and starts the question a sentence closes with ("... - want to see it?")
_QUESTION_BREAKS = frozenset({"-", "–", "—", ";", ",", ":", "..."})
_WH_WORDS = frozenset({"what", "where", "when", "who", "whom", "whose", "which", "why", "how"})


def stated_before_question(sent: Span) -> str | None:
    """The text of the statement a question sentence opens with, before the last break ("FYI, I
    finished another bowl - want to see it?": "FYI, I finished another bowl"), to be parsed
    alone (the parser hangs the question on the statement's verb); None for a sentence that is
    no question or has no such break."""
    if not is_question(sent):
        return None
    cut = next((t for t in reversed(sent) if t.is_punct and t.text in _QUESTION_BREAKS), None)
    if cut is None or cut.i - sent.start < 3:
        return None
    return sent.doc[sent.start:cut.i].text


def is_said(pred: Token) -> bool:
    """A predicate stated, not asked: its own subject comes before it, and no auxiliary or
    wh-word comes before that subject ("I finished it" is said; "did you finish it", "what
    did you bake" are asked)."""
    subj = next((c for c in pred.children if c.dep_ in SUBJECT_DEPS), None)
    if subj is None or subj.i > pred.i:
        return False
    return not any(t.lower_ in _WH_WORDS or t.pos_ == "AUX" or t.dep_ in ("aux", "auxpass")
                   for t in pred.doc[pred.left_edge.i:subj.i])


def clause_heads(sent: Span) -> Iterator[Token]:
    """Predicates of a sentence: verbs (and copulas) heading a clause, in order."""
    for tok in sent:
        if tok.dep_ not in CLAUSE_DEPS:
            continue
        if tok.pos_ in ("VERB", "AUX") or (tok.dep_ == "ROOT" and tok.pos_ in ("ADJ", "NOUN")):
            # a verb joined to a noun is a misparse
            if tok.dep_ == "conj" and tok.head.pos_ not in ("VERB", "AUX") and not _after_verbless_head(tok):
                continue
            yield tok


def _after_verbless_head(tok: Token) -> bool:
    """"Mostly good, but Rex cut his paw": a verb with its own subject joined to a sentence head
    with no verb is a clause of its own."""
    return (tok.head.dep_ == "ROOT" and tok.head.pos_ in ("ADJ", "NOUN") and tok.pos_ in ("VERB", "AUX")
            and any(c.dep_ in SUBJECT_DEPS for c in tok.children))


_LAUGHTER = re.compile(r"^(?:[aeiou]?h+[aeiou]+){2,}h?$"
                       r"|^(?:lo+l|lmf?ao+|rofl|xd+|h+m+|m+h+m+|u+[hg]+|o+h+|a+w+)$", re.I)
_ELONGATED = re.compile(r"([a-z])\1\1", re.I)


_INTERJECTIONS = frozenset({"okay", "ok", "kk", "anyway", "anyways", "exactly", "yeah", "yep", "yes", "nah",
                            "oh", "ah", "aw", "huh", "yay", "ugh", "oops", "whoa", "wow", "hey", "hi", "um",
                            "uh", "congrats", "thanks", "omg", "btw", "tbh", "meh", "ew", "yikes", "welp",
                            "oof",
                            # chat shorthand: "not gonna lie", "I don't know", "see you", "though" ...
                            "ngl", "idk", "imo", "imho", "tho", "cya", "lmk", "smh", "ikr", "jk", "thx",
                            "ty", "pls", "plz", "brb", "ttyl"})


_MARKUP_TOKENS = frozenset({":", "-", "*", "**", "__", "#", "##", "###", "####", "|", "•", ">"})


def after_markup(span: Span) -> bool:
    """The span opens a line or follows a list marker or a label's colon."""
    if span.start == 0:
        return False
    before = span.doc[span.start - 1]
    return before.is_space or "\n" in before.whitespace_ or before.text in _MARKUP_TOKENS


def in_title(tok: Token, outside: Token | None = None) -> bool:
    """The token stands in a markdown title (a heading line, a bold label: "**Save and Test:**")
    — with ``outside``, one that token is not in. A title names what follows; its words are no
    subject of the clause that follows it."""
    doc = tok.doc
    titles: list[tuple[int, int]] | None = doc.user_data.get("titles")
    if titles is None:
        titles = [(m.start(), m.end()) for m in TITLE_RE.finditer(doc.text)]
        doc.user_data["titles"] = titles
    span = next(((a, b) for a, b in titles if a <= tok.idx < b), None)
    return span is not None and (outside is None or not span[0] <= outside.idx < span[1])


def in_table_row(span: Span) -> bool:
    """The span stands on a markdown table row ("| Flight | (Varies, check your booking) |"):
    cells side by side, no sentence (a row's cells read as one make "Varies" a kind of fee)."""
    text = span.doc.text
    start = text.rfind("\n", 0, span.start_char) + 1
    end = text.find("\n", span.start_char)
    line = text[start:end if end >= 0 else len(text)].strip()
    return line.startswith("|") and line.count("|") >= 2


def in_parentheses(tok: Token) -> bool:
    """The token stands inside a parenthesised aside of its line: "Phase 1 (Plot and Character)",
    "the STAR method (Situation, Task, Action, Result)"."""
    for t in reversed(tok.doc[tok.sent.start:tok.i]):
        if t.text == "(":
            return True
        if t.text == ")" or "\n" in t.text or "\n" in t.whitespace_:
            return False
    return False


def opens_instruction(span: Span, speaker: str, common: frozenset[str]) -> bool:
    """The span's first word is a word the talk writes in lower case (``common``) set where an
    instruction or a title starts: after markdown's scaffolding (a list marker, a label, a new
    line), or opening an assistant's sentence — "**Breathing**: Inhale slowly", "- Gather the
    receipts", "Consistency is key". Capitalised there, it is a verb or a title's word, no name."""
    words = span.text.split()
    if not words or words[0].lower() not in common:
        return False
    return after_markup(span) or (span.start == span.sent.start and speaker.lower() in ASSISTANT_ROLES)


def is_noise_word(word: str, *, acknowledgements: bool = True) -> bool:
    """Laughter, an elongated shout or an interjection: "hahaha", "lol", "NOOO", "sooo",
    "okay"; with ``acknowledgements`` also any word of an acknowledgement ("Congrats", "Cool")
    — a word that names nothing."""
    low = word.lower().strip(".,!?;:'\"")
    # ... also with its last letter held ("yess", "loll", "okk")
    forms = (low, low[:-1]) if len(low) > 2 and low[-1] == low[-2] else (low,)
    return bool(low) and any(bool(_LAUGHTER.match(f)) or bool(_ELONGATED.search(f)) or f in _INTERJECTIONS
                             or (acknowledgements and f in lexicon.ACK_WORDS) for f in forms)


def name_shaped(name: str) -> bool:
    """Is every word of ``name`` written the way people's names are written: a capital, then
    lower-case letters ("Søren", "Jean-Luc", "O'Brien"), a capital after a short prefix at most
    ("McDonald", "DeAndre", "MacKenzie"), a short particle before a word ("van Gogh")? An
    acronym ("AB", "DEBUG"), a word with digits or an underscore ("GH_TOKEN", "52C2"), a lone
    letter ("Person A") or a capital inside a longer word ("GeoGebra", "IntersectionObserver")
    is how things and labels are written, not people."""
    words = name.replace("’", "'").removesuffix("'s").split()
    # a title or an initial shortened with a full stop is part of a name ("Dr. Phil", "J. Rowling"),
    # and so is a short particle before one of its words ("Vincent van Gogh", "da Vinci")
    return bool(words) and all(_name_word(w) or (len(words) > 1 and _shortened(w))
                               or (i < len(words) - 1 and _particle(w)) for i, w in enumerate(words)) \
        and not all(_shortened(w) for w in words)


def _particle(word: str) -> bool:
    return len(word) <= 3 and word.isalpha() and word.islower()


def _shortened(word: str) -> bool:
    return len(word) <= 4 and word.endswith(".") and word[:1].isupper() and word[:-1].isalpha()


def name_kind(name: str) -> str:
    """The type a name gets when nothing else types it: a person when it is written the way
    people's names are (``name_shaped``), else what ``unnamed_kind`` says it is."""
    return "person" if name_shaped(name) else unnamed_kind(name)


def unnamed_kind(name: str) -> str:
    """The type of a name not written the way people's are (``name_shaped`` is false): a
    program's or a product's name when its words are letters ("SQLAlchemy", "YNAB", "GeoGebra
    Classic"), a label or a variable when a word is a lone letter or holds digits, an underscore
    or other signs ("Person A", "GH_TOKEN", "52C2")."""
    words = name.replace("’", "'").removesuffix("'s").split()
    return "object" if words and all(len(w) > 1 and re.fullmatch(r"[^\W\d_]+(?:[-.'][^\W\d_]+)*", w)
                                     for w in words) else "concept"


def _name_word(word: str) -> bool:
    parts = re.split(r"[-']", word)
    if len(parts) > 1 and len(parts[0]) == 1 and parts[0].isupper():  # "O'Brien", "D'Angelo"
        parts = parts[1:]
    for part in parts:
        if len(part) < 2 or not part.isalpha() or not part[0].isupper():
            return False
        rest = part[1:]
        inner = [i for i, ch in enumerate(rest) if ch.isupper()]
        if not inner:
            if not rest.islower():
                return False
            continue
        # one capital after a prefix of one lower-case letter, or "Mac": "McDonald", "MacKenzie"
        if len(inner) > 1 or not (inner[0] == 1 or (part[:3] == "Mac" and inner[0] == 2)) \
                or not rest[inner[0] + 1:].islower() or len(rest) - inner[0] < 3:
            return False
    return True


def is_bare_contraction(word: str) -> bool:
    """"Ill go", "Im here": a contraction typed without its apostrophe — one of the forms
    ``nlp.normalise_text`` gives it back (``BARE_CONTRACTION_RE``), or an "ill" that it left
    alone because it could not tell it from the word; never a name."""
    core = word.strip(".,!?;:'\"")
    return core.lower() == "ill" or bool(BARE_CONTRACTION_RE.fullmatch(core))


def group_pronoun(tok: Token) -> str | None:
    """The pronoun that makes a noun people ("you guys", "we two", "us girls"), if any."""
    return next((c.lower_ for c in tok.children if c.i < tok.i and c.lower_ in lexicon.GROUP_PRONOUNS), None)


def is_vocative(tok: Token) -> bool:
    """"Hey Caroline, ..." / "Thanks, Mel!": a name addressed, not a subject."""
    if tok.pos_ != "PROPN":
        return False
    doc = tok.doc
    after = doc[tok.i + 1].text if tok.i + 1 < len(doc) else ""
    before = doc[tok.i - 1] if tok.i > 0 else None
    if after not in (",", "!", ".", "?"):
        return False
    return before is None or before.is_sent_start or before.pos_ == "INTJ" or before.is_punct or \
        before.lower_ in ("hey", "hi", "hello", "thanks", "thank", "wow", "yes", "yeah", "oh", "so")


def misread_name(pred: Token) -> Token | None:
    """"Ledgerly announced layoffs": a capitalised word opening a subjectless clause, hung on its
    verb as an adverb or modifier though it is no word of the language — a name the small tagger
    misread, and the clause's subject."""
    first = pred.sent[0]
    if first.i >= pred.i or first.head.i != pred.i \
            or first.dep_ not in ("advmod", "npadvmod", "compound", "dep"):
        return None
    if not (first.text[:1].isupper() and first.text.isalpha() and len(first.text) > 2) or first.lower_ == "i":
        return None
    if any(c.dep_ in SUBJECT_DEPS for c in pred.children) or known_word(first.text) \
            or is_noise_word(first.text):  # ("Omg, finished it!": chat shorthand is no name)
        return None
    return first


def addressed(tok: Token) -> bool:
    """"Sleep well, new museum lady!": a bare noun phrase set off by a comma at the end of the
    sentence is the one spoken to, no part of the clause."""
    if tok.dep_ not in ("npadvmod", "dep") or tok.pos_ not in ("NOUN", "PROPN"):
        return False
    if any(t.dep_ == "prep" for t in tok.subtree):
        return False
    first, last = tok.left_edge, tok.right_edge
    doc = tok.doc
    after = doc[last.i + 1] if last.i + 1 < len(doc) else None
    return first.i > 0 and doc[first.i - 1].text == "," and (after is None or after.is_punct) \
        and last.i + 1 >= tok.sent.end - 1


def _subjects(node: Token) -> list[Token]:
    found = [c for c in node.children if c.dep_ in SUBJECT_DEPS]
    for aux in (c for c in node.children if c.dep_ in ("aux", "auxpass")):
        found.extend(g for g in aux.children if g.dep_ in SUBJECT_DEPS)
    return [c for c in found if not is_vocative(c)]


def subject_of(pred: Token) -> Token | None:
    """The subject of a predicate, inherited along conj/xcomp chains."""
    current = pred
    for _ in range(6):
        found = _subjects(current)
        if found:
            before = [c for c in found if c.i < current.i]
            return before[-1] if before else found[0]
        if current.dep_ in ("conj", "xcomp") and current.head.i != current.i:
            if current.dep_ == "xcomp":
                # "asked me to help": the object of the governor is the subject of the xcomp
                for child in current.head.children:
                    if child.dep_ == "dobj" and child.pos_ == "PRON" and child.i < current.i:
                        return child
            current = current.head
            continue
        return None
    return None


def kind(noun: Token) -> str:
    """The kind a noun names, with the words compounded before it ("my guinea pig" -> "guinea pig")."""
    before = [t.lower_ for t in noun.children if t.dep_ == "compound" and t.i < noun.i]
    return " ".join([*before, noun.lower_])


def phrase(tok: Token, *, max_words: int = 10, name: bool = False) -> str:
    """A compact text for a token's phrase: its subtree minus clauses, leading determiners.

    With ``name`` relative and participle clauses go too: an entity is named by its noun
    phrase ("the bowl I made on the wheel" -> "bowl").
    """
    words = []
    skip: set[int] = set()
    drop = _DROP_DEPS | {"relcl", "acl"} if name else _DROP_DEPS
    for child in tok.children:
        if (child.dep_ in drop or said_by_speakers(child)) and child.i > tok.i:
            skip.update(t.i for t in child.subtree)
    for t in tok.subtree:
        if t.i in skip or time_word(t, tok.i):
            continue  # the time goes to valid_time, not into the value ("summer break" stays)
        words.append(t)
    while words and (words[0].lower_ in _LEADING or words[0].is_punct or words[0].dep_ in ("cc", "prep")):
        words = words[1:]
    words = words[:max_words]
    kept = {t.i for t in words}
    while words and (words[-1].is_punct or words[-1].dep_ == "cc" or words[-1].lower_ in ("and", "or")
                     or orphaned(words[-1], kept)):
        words = words[:-1]
    return join(words)


_SPEAKERS_VOICE = frozenset({"i", "we"})


def said_by_speakers(tok: Token) -> bool:
    """A relative clause whose subject is the speaker ("the pottery class I kept talking
    about", "the cabin we rented"): a remark on the thing, not part of what it is — the value
    keeps the thing ("pottery class"), not a first person no record can carry."""
    return tok.dep_ == "relcl" and any(
        c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in _SPEAKERS_VOICE for c in tok.children)


def orphaned(tok: Token, kept: set[int]) -> bool:
    """A preposition (or a determiner) whose words it governs are all left out of the value
    ("plans for" once "the weekend" went to valid_time): a cut-off, not a value's last word."""
    if tok.dep_ not in ("prep", "det", "predet"):
        return False
    governed = [c for c in tok.children if not c.is_punct] if tok.dep_ == "prep" else [tok.head]
    return bool(governed) and not any(c.i in kept for c in governed)


def is_noun_modifier(tok: Token) -> bool:
    return tok.dep_ in ("compound", "amod") and tok.head.pos_ == "NOUN"


def time_word(tok: Token, keep: int | None = None) -> bool:
    """A word of a time expression, which goes to valid_time rather than into a value: "year"
    and its "last" alike — but not a time word that modifies a noun ("summer" of "summer
    break"), nor one modifying the token ``keep`` (the phrase's own head: "my last day")."""
    if tok.ent_type_ not in ("DATE", "TIME") or tok.i == keep:
        return False
    if is_noun_modifier(tok):
        return time_word(tok.head, keep)
    return True


def join(tokens: list[Token]) -> str:
    """Tokens back to text with their original spacing ("self-care", "Melanie's")."""
    out = []
    for k, t in enumerate(tokens):
        contiguous = k + 1 < len(tokens) and tokens[k + 1].i == t.i + 1
        out.append(t.text_with_ws if contiguous else t.text + " ")
    return "".join(out).strip()


def _cannot(pred: Token, modals: tuple[str, ...] = ("ca", "can", "could")) -> bool:
    return any(c.dep_ == "neg" for c in pred.children) and any(
        c.dep_ == "aux" and c.lower_ in modals for c in pred.children)


def is_eager(pred: Token) -> bool:
    """"I can't wait (to see it / for the trip)": looking forward, no negated waiting."""
    return lemma(pred) == "wait" and _cannot(pred, ("ca", "can"))


def names_a_kind(pred: Token) -> bool:
    """"I have baking news", "I have painting plans": an -ing word right after "have", with an
    object, the parser took for a verb — it says what kind of news or plans, nobody bakes or
    paints ("have" + -ing is no tense without "been": "I have been baking bread" stays)."""
    if pred.tag_ != "VBG" or pred.i == 0 or not any(c.dep_ == "dobj" for c in pred.children):
        return False
    have = pred.doc[pred.i - 1]
    been = any(c.dep_ == "aux" and c.lemma_.lower() == "be" for c in pred.children)
    if have.lemma_.lower() != "have" or been:
        return False
    return have.head.i == pred.i or (pred.dep_ == "xcomp" and pred.head.i == have.i)


def keeps_on(pred: Token) -> bool:
    """"I can't stop thinking about it", "never stopped thinking about it", "can't help smiling":
    the doing goes on."""
    if not any(c.dep_ == "xcomp" and c.tag_ == "VBG" for c in pred.children):
        return False
    if lemma(pred) in ("stop", "quit"):
        return any(c.dep_ == "neg" or c.lower_ == "never" for c in pred.children)
    return lemma(pred) == "help" and _cannot(pred)


def is_emphatic(pred: Token) -> bool:
    """"I couldn't be happier with it", "it couldn't have gone better": the utmost, not a denial."""
    return _cannot(pred) and any(c.dep_ in ("acomp", "attr", "advmod")
                                 and (c.tag_ in ("JJR", "RBR") or c.lower_ == "more") for c in pred.children)


def eager_complement(pred: Token) -> Token | None:
    """What "can't wait to ..." looks forward to doing ("to visit Rome": visit), if a verb."""
    return next((c for c in pred.children if c.dep_ in ("xcomp", "advcl") and c.pos_ in ("VERB", "AUX")
                 and any(a.dep_ == "aux" and a.lower_ == "to" for a in c.children)), None)


def is_negated(pred: Token) -> bool:
    for node in (pred, pred.head if pred.dep_ == "xcomp" else None):
        if node is None or is_eager(node) or keeps_on(node) or is_emphatic(node):
            continue
        if any(c.dep_ == "neg" or c.lower_ in ("never", "not", "n't") for c in node.children):
            return True
    return False


def modality(pred: Token) -> tuple[Modality, Token | None]:
    """Modality of a clause and, when set by a governing verb, that verb ("want", "plan" ...)."""
    aux = {c.lower_ for c in pred.children if c.dep_ in ("aux", "auxpass")}
    governor = pred.head if pred.dep_ == "xcomp" else None
    if is_negated(pred):
        return Modality.NEGATED, governor
    if is_emphatic(pred):
        return Modality.OBSERVED, None  # "couldn't be happier": no hypothesis either
    ahead = eager_complement(pred.head) if pred.head.i != pred.i and is_eager(pred.head) else None
    if ahead is not None and ahead.i == pred.i:
        return Modality.PLANNED, pred.head  # "can't wait to visit Rome": looked forward to
    if pred.dep_ in ("ccomp", "xcomp") and pred.head.lemma_ == "let" and any(
            c.lower_ in ("'s", "us") for c in (*pred.children, *pred.head.children)):
        return Modality.PLANNED, pred.head  # "let's go to a dance class"
    if pred.dep_ == "conj" and not aux and pred.head.i != pred.i and pred.head.pos_ in ("VERB", "AUX"):
        inherited = modality(pred.head)  # "going to continue X and check out Y": Y is planned too
        if inherited[0] in (Modality.PLANNED, Modality.DESIRED, Modality.HYPOTHETICAL):
            return inherited
    if governor is not None:
        g_aux = {c.lower_ for c in governor.children if c.dep_ in ("aux", "auxpass")}
        lemma = governor.lemma_.lower()
        if lemma == "go" and governor.tag_ == "VBG":
            return Modality.PLANNED, governor  # "going to ..."
        if lemma in ("want", "wish", "hope", "dream", "long", "yearn", "desire", "aspire"):
            return Modality.DESIRED, governor
        if lemma in ("love", "like") and g_aux & _MODAL_HYPO:
            return Modality.DESIRED, governor  # "I'd love to ..."
        if lemma in lexicon.PLAN_VERBS and lemma not in ("go", "be"):
            return Modality.PLANNED, governor
        if lemma in ("think", "consider"):
            return Modality.DESIRED, governor
        if g_aux & _MODAL_FUTURE:
            return Modality.PLANNED, governor
    if aux & _MODAL_FUTURE:
        return Modality.PLANNED, None
    if aux & _MODAL_HYPO and condition_of(pred) is not None:
        return Modality.HYPOTHETICAL, None
    if aux & {"would", "'d", "could", "might"}:
        return Modality.HYPOTHETICAL, None
    if pred.tag_ == "VBG" and "be" in {c.lemma_ for c in pred.children if c.dep_ == "aux"} and any(
            c.ent_type_ in ("DATE", "TIME") and c.lower_ in ("next", "tomorrow", "tonight")
            for c in pred.subtree):
        return Modality.PLANNED, None  # "I'm flying to Paris next week"
    return Modality.OBSERVED, None


_BACKWARD = frozenset({"past", "last", "ago", "previous", "earlier", "before"})


def looks_ahead(span: Span) -> bool:
    """The time expression ``span`` speaks of what is still to come: its clause is planned or
    wished ("will", "going to", "want to") or said in the present ("the studio is having a show
    in August", "the market opens on Friday") — not in a past or perfect tense ("we played there
    in August", "I've been there in May"), and the expression does not point back itself ("this
    past weekend", whatever the parse makes of its clause)."""
    if any(t.lower_ in _BACKWARD for t in span):
        return False
    clause = owning_clause(span.root)
    if clause is None:
        return False
    if modality(clause)[0] in (Modality.PLANNED, Modality.DESIRED):
        return True
    aux = [c for c in clause.children if c.dep_ in ("aux", "auxpass")]
    if any(a.lemma_ == "have" for a in aux):
        return False
    finite = aux[0] if aux else clause
    return finite.tag_ in ("VBZ", "VBP") and not is_past_form(finite)  # "I swam" may be tagged VBP


def condition_of(pred: Token) -> str | None:
    """The text of an "if"/"unless"/"when" clause attached to the predicate."""
    for child in pred.children:
        marks = [m for m in child.children if m.dep_ == "mark" and m.lower_ in ("if", "unless")]
        if child.dep_ == "advcl" and marks:
            words = [t for t in child.subtree
                     if not t.is_punct and not (t.i == marks[0].i and t.lower_ == "if")]
            return join(words)
    return None


def cause_of(pred: Token) -> str | None:
    for child in pred.children:
        if child.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in ("because", "since", "as", "so")
                                         for m in child.children):
            return " ".join(t.text for t in child.subtree if not t.is_punct)
        if child.dep_ == "prep" and child.lower_ == "because":
            return " ".join(t.text for t in child.subtree if not t.is_punct)
    return None


def manner_of(pred: Token) -> str | None:
    for child in pred.children:
        if child.dep_ == "advmod" and child.lower_.endswith("ly") and len(child.lower_) > 4:
            return child.text
        if child.dep_ == "prep" and child.lower_ in ("by", "with") and child.lower_ != "with":
            return phrase(child, max_words=6)
    return None


def owning_clause(tok: Token) -> Token | None:
    """The nearest clause head above a token."""
    node = tok
    for _ in range(12):
        if node.dep_ in CLAUSE_DEPS and node.pos_ in ("VERB", "AUX", "ADJ", "NOUN"):
            return node
        if node.head.i == node.i:
            return node
        node = node.head
    return None


def gerund_lemma(word: str) -> str:
    """"camping" -> "camp", "swimming" -> "swim", "hiking" -> "hike", "riding" -> "ride"."""
    w = word.lower()
    if not w.endswith("ing") or len(w) < 6:
        return w
    stem = w[:-3]
    doubled = stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else None
    for candidate in (stem, stem + "e", doubled):
        if candidate and candidate in lexicon.VERBS:
            return candidate
    if doubled is None and (_SHORT_CVC.match(stem) or (stem[-1] == "l" and stem[-2] in "bcdfgkptz")):
        return stem + "e"  # "riding" -> "ride" (a short vowel doubles: "ridding"); "paddling" -> "paddle"
    return doubled or stem
