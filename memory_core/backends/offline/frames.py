"""Drafts -> records and event frames: ids, de-duplication, one frame per event predicate.

A draft becomes a record unless an equal one (entity, property, value, modality, turn) came
before. A draft of an event property, or one with a time, whose predicate is a verb gives an
event frame (once per predicate): action "<verb> [particle]: <value>", the participants (every
entity of a draft of that predicate, named people in its subtree, "with" companions), the first
place named, cause and manner.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

from memory_core.backends.offline import clauses
from memory_core.backends.offline.drafts import PRONOUN_VALUES, VAGUE_NOUNS, Draft, ExtractState
from memory_core.backends.offline.propositions import DISCOURSE, third_person
from memory_core.backends.offline.subjects import possessor
from memory_core.construct import lexicon
from memory_core.contracts import ASSISTANT_ROLES, Extraction
from memory_core.models import EventFrame, Record, Turn

if TYPE_CHECKING:
    from spacy.tokens import Token


def finish(state: ExtractState, turns: list[Turn]) -> Extraction:
    episode = state.episode
    records: list[Record] = []
    events: list[EventFrame] = []
    stated: dict[tuple[str, str, str, str], int] = {}  # restatement key -> index in records
    event_preds: set[int] = set()
    for d in state.drafts:
        other = next((sp for sp in state.info.speakers if sp != d.turn.speaker), "")
        entity = d.entity.strip()
        value = _value(d, d.prop, other)
        restates_alias = d.prop != "goes_by" and value.lower() in state.aliases  # "Anna identity Annie"
        if not entity or not d.prop or not value or not worth_keeping(d, state.info.speakers) \
                or is_raw_utterance(value) or _opens_with_interjection(d.value) or restates_alias \
                or _empty_word(value, d.pred, d.prop) or _reciprocal_only(value):
            continue
        key = (entity.lower(), d.prop, _gist(value), d.modality.value)
        earlier = stated.get(key)
        if earlier is not None:  # the same fact stated again in the episode: one record, both turns
            first = records[earlier]
            if d.turn.id not in first.evidence_turn_ids:
                records[earlier] = first.model_copy(
                    update={"evidence_turn_ids": (*first.evidence_turn_ids, d.turn.id)})
            continue
        stated[key] = len(records)
        records.append(Record(
            id=f"{episode.id}:R{len(records) + 1}", conv_id=episode.conv_id, episode_id=episode.id,
            entity=entity, entity_type=d.entity_type, property=d.prop, value=value[:200],
            condition=d.condition, modality=d.modality,
            valid_time=d.time.iso if d.time else None, valid_time_text=d.time.text if d.time else None,
            evidence_turn_ids=(d.turn.id,), confidence=d.confidence, source_speaker=d.turn.speaker,
        ))
        if d.pred is not None and (d.event or d.time is not None) and d.pred.pos_ == "VERB" \
                and _carries_content(value, d.pred):
            key_pred = hash((d.turn.id, d.pred.i))
            if key_pred in event_preds:
                continue
            event_preds.add(key_pred)
            # the frame's verb is the clause's: when the property names another verb ("go camping
            # with Pepper": camps), the words the record's value dropped for it stay in the frame
            own_verb = d.prop.split("_")[0] == third_person(clauses.lemma(d.pred))
            events.append(_frame(state, d, value if own_verb else _value(d, "", other), len(events) + 1))
    return Extraction(records=records, events=events)


# a subject holding one of these is markdown or code, not a name
_MARKUP_RE = re.compile(r"[*#|`\[\]{}<>=\\]|\n|\(\)|^\W*:")
_NAME_START_RE = re.compile(r"[\w\"“'‘]")
# markdown in a value: a heading's or a table's mark standing alone, bold marks, code fences
_VALUE_MARKUP_RE = re.compile(r"(?:^|\s)(?:#{1,6}|\|)(?=\s|$)|\*\*|__|`")
# a time word alone is no value: "work a manager role at this point" gives no employer
TIME_UNITS = frozenset({
    "point", "moment", "moments", "time", "times", "stage", "second", "seconds", "minute", "minutes",
    "hour", "hours", "day", "days", "week", "weeks", "weekend", "weekends", "month", "months", "year",
    "years", "night", "nights", "morning", "mornings", "evening", "evenings", "afternoon",
    "afternoons", "while"})
_DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those", "some", "one", "another"})
_FILLER = frozenset({"a", "an", "the", "some", "to", "of", "and", "so", "really", "very", "much", "my",
                     "your", "their", "his", "her", "own"})


def _gist(value: str) -> str:
    """A value without case, articles, fillers and plural s: what makes two statements one fact."""
    words = [w.strip(".,!?;:'\"").lower() for w in value.split()]
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in words if w and w not in _FILLER)


OPINION_ONLY = frozenset({"description", "talks_about", "shares_image"})
# words of a speaker's own voice: the value extractors rewrite them to the speakers' names, so a
# value that still holds one is a piece of the utterance, not a proposition about anyone
_VOICE = frozenset({"i", "i'm", "im", "i've", "i'd", "i'll", "you're", "you've", "you'll", "we", "we're",
                    "we've"})
# object and possessive pronouns left in a value are the speakers: rewritten to their names
_FIRST = {"me": "{me}", "my": "{me}'s", "mine": "{me}'s", "our": "{me}'s"}  # "us": both, or a group
_SECOND = {"you": "{you}", "your": "{you}'s", "yours": "{you}'s"}
_PARTICLES = frozenset({"up", "out", "off", "down", "over", "away"})
_DANGLING = frozenset({"the", "a", "an", "and", "but", "or"})
# an adverb that only says when or how far a value holds, at its end ("met you yet", "Paris
# again"): the thing is the words before it ("too", "already", "though", "lately" are fillers)
_TRAILING_ADVERBS = frozenset({"yet", "anymore", "again", "either"})
_BARE = frozenset({"on", "in", "at", "with", "for", "by", "from", "into", "about", "up", "out", "off",
                   "down", "over", "away", "through", "around", "back", ""})  # no object, nothing said
_NO_OBJECT = _BARE | {"to"}  # ... and "to" ("eats: to eat", "listens_to: to music")
# adverbs that say only when or how often: "(never attended) one before", "(try) it again"
_WHEN_ONLY = frozenset({"before", "again", "yet", "ever", "later", "earlier", "once", "since", "anymore"})


def _filler(word: str) -> bool:
    return (clauses.is_noise_word(word, acknowledgements=False) or word.lower().strip(",.!") in DISCOURSE
            or _pictograph(word))


def _pictograph(word: str) -> bool:
    """An emoji or another symbol standing alone ("😅", "❤️"): it colours a turn, states nothing."""
    return bool(word) and all(unicodedata.category(ch) in ("So", "Sk", "Cf", "Mn") for ch in word)


def _fragment(word: str) -> bool:
    """A lone letter that is no word of its own: the tail of a word the tagger cut in two ("d"
    of "id rather ...", a contraction typed without its apostrophe)."""
    return len(word) == 1 and word.isalpha() and word.lower() not in ("a", "i")


def clean_value(value: str, prop: str) -> str:
    """A value without the chat around it: no leading or trailing interjection, discourse word
    or emoji ("Exactly spoiled rotten", "escaping Anyway", "soup 😆"), no trailing "yet", "again",
    "too" and the like ("met Ines yet" -> "Ines"), no leading letter cut
    from a word ("d rather swim"), no leading form of the
    property's own verb ("plays: played live" -> "live"), nor its own preposition again
    ("hopes_for: for rain" -> "rain"), no dangling article or conjunction."""
    words = value.split()
    verb = prop.split("_")[0].lower()
    particle = prop.rsplit("_", 1)[-1].lower() if "_" in prop else None
    particle = particle if particle in _NO_OBJECT else None  # "loses_job: job at X" keeps "job"
    stem = verb[:-2] if verb.endswith("es") and len(verb) > 4 else verb[:-1] if verb.endswith("s") else verb
    stem = stem[:-1] if stem.endswith("e") and len(stem) > 3 else stem
    for _ in range(3):
        before = len(words)
        while words and (_filler(words[0]) or _fragment(words[0])):
            words = words[1:]
        while words and (_filler(words[-1]) or words[-1].lower() in _DANGLING
                         or (len(words) > 1 and words[-1].lower().strip(".,!?") in _TRAILING_ADVERBS)):
            words = words[:-1]
        if words and len(stem) >= 3 and words[0].lower().startswith(stem) and len(words[0]) <= len(stem) + 4:
            rest = words[1:]  # "rehearses: rehearse twice a week"; "paints: painting" stays
            while rest and rest[0].lower() in _PARTICLES:
                rest = rest[1:]
            words = rest or words
        if particle and len(words) > 1 and words[0].lower() == particle:
            words = words[1:]
        if len(words) == before:
            break
    return " ".join(words).strip(" ,;:-")


_TIME_PREPS = frozenset({"on", "in", "at", "during", "since", "until", "by"})


def _value(d: Draft, prop: str, other: str) -> str:
    """The draft's value cleaned as for ``prop`` (``clean_value``), the speakers named, and
    without the preposition a date left behind ("with Ben on" [Monday])."""
    value = clean_value(d.value, prop)
    if other and d.entity == d.turn.speaker and any(p in value for p in _RECIPROCAL):
        subject = clauses.subject_of(d.pred) if d.pred is not None else None
        # "we support each other", "let's keep cheering each other on": the speaker and the other
        if subject is None or subject.lower_ in ("we", "us", "'s"):
            for phrase in _RECIPROCAL:
                value = value.replace(phrase, other)
    words = speakers_named(value, d.turn.speaker, other).split()
    if d.time is not None and len(words) > 1 and words[-1].lower() in _TIME_PREPS:
        words = words[:-1]
    if d.pred is not None and len(words) > 1 and words[0] == d.pred.text and prop \
            and prop.split("_")[0] == third_person(clauses.lemma(d.pred)):
        words = words[1:]  # "swims: swam nonstop": the property already says the verb
    return " ".join(words)


def _carries_content(value: str, pred: Token) -> bool:
    """An event's object says more than its verb: "wake up: wake up" is no event frame."""
    lemma = pred.lemma_.lower()
    stem = lemma[:-1] if lemma.endswith("e") and len(lemma) > 3 else lemma
    return any(not (w.lower().startswith(stem) or w.lower() in _PARTICLES or w.lower() in DISCOURSE)
               for w in value.split())


def speakers_named(value: str, speaker: str, other: str) -> str:
    """Object and possessive pronouns a value kept, as the speakers' names ("happy for you" said
    by Anna to Ben -> "happy for Ben"; "near me" -> "near Anna")."""
    out = []
    for w in value.split():
        core = w.rstrip(".,!?;:")
        low = core.lower().replace("’", "'")
        form = _FIRST.get(low) or (_SECOND.get(low) if other else None)
        out.append(form.format(me=speaker, you=other) + w[len(core):] if form else w)
    return " ".join(out)


def _opens_with_interjection(value: str) -> bool:
    """"Okay, Pepper is staring at me": a value that opens like a turn is a piece of it."""
    first = value.split(",", 1)[0].strip()
    return "," in value and " " not in first and clauses.is_noise_word(first, acknowledgements=False)


# a lone word of these kinds says nothing about anyone: "works: together", "eats: them",
# "recommends: few", "talks: about", "has: have"
_EMPTY_POS = frozenset({"PRON", "DET", "ADP", "AUX", "PART", "CCONJ", "SCONJ", "INTJ", "PUNCT", "SYM"})
_LIGHT_LEMMAS = frozenset({"be", "have", "do"})


def _empty_word(value: str, pred: Token | None, prop: str) -> bool:
    """A one-word value that, where it was said, is a pronoun, a determiner, a preposition, a
    particle, an auxiliary, a function adverb or adjective ("together", "back", "few"), a
    comparative or superlative adverb ("hardest"), a vague noun ("lots") or a light verb, or
    that only says the property's verb again ("likes: love", "creates: make", "walks: walking";
    "loses_job: job" and "injury: hurt" state their fact in the property and stay); or a stray
    letter. No proposition: dropped. "abroad", "online" and "single" are kept."""
    words = value.split()
    if len(words) != 1:
        return False
    word = words[0].strip(".,!?;:'\"()").lower()
    if not any(ch.isdigit() for ch in word) and sum(ch.isalpha() for ch in word) < 2:
        return True
    said = next((t for t in pred.sent if t.lower_ == word), None) if pred is not None else None
    if said is None:
        return False
    pos, lemma = said.pos_, said.lemma_.lower()
    if pos in ("VERB", "NOUN") and "_" not in prop and prop.endswith("s"):  # a verb property wants an object
        verb = clauses.lemma(said) if pos == "VERB" else lemma
        mapped = lexicon.VERBS.get(verb)
        if (mapped is not None and mapped.name == prop) or third_person(verb) == prop:
            return True
    return (pos in _EMPTY_POS or (pos == "ADV" and (said.is_stop or said.tag_ in ("RBR", "RBS")))
            or (pos == "ADJ" and said.is_stop) or (pos == "VERB" and lemma in _LIGHT_LEMMAS)
            or (pos == "NOUN" and lemma in VAGUE_NOUNS))


def is_raw_utterance(value: str) -> bool:
    """A value that still holds a first- or second-person subject ("Okay, Pepper is staring at
    me, I'm ...", "I've been waiting"): a copy of the turn, not a proposition."""
    return any(w.lower().strip(".,!?;:\"()") in _VOICE for w in value.replace("’", "'").split())


_RECIPROCAL = ("each other", "one another")
_NAMED_LATER = frozenset({"me", "you"})  # ``speakers_named`` writes them as names ("shares with you")


def _reciprocal_only(value: str) -> bool:
    """"(always) each other": whom it was done to is not said (a "we" subject's reciprocal is
    named by ``_value``)."""
    said = " ".join(value.lower().split())
    return said.endswith(_RECIPROCAL) and len(said.split()) <= 3


# markdown's scaffolding: a heading line, the opening words of a list item, a bold span
_HEADING_LINE_RE = re.compile(r"(?m)^[ \t]*#{1,6}[ \t].*$")
_ITEM_START_RE = re.compile(r"(?m)^[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)+(?:\*\*|__)?")
_BOLD_RE = re.compile(r"(\*\*|__)(?!\s)(.+?)(?<!\s)\1")


def only_in_labels(name: str, text: str) -> bool:
    """Every time the turn says ``name`` it is markdown's scaffolding: in a heading, opening a
    list item or in bold ("### Week 2 (May 2-8): Glazing", "1. **Track Progress**: Keep a log").
    Such words title what follows; no one named there does anything. False when the turn never
    says the name as written."""
    spans = _label_spans(text)
    said = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text)] if spans else []
    return bool(said) and all(any(a <= at < b for a, b in spans) for at in said)


@lru_cache(maxsize=256)
def _label_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where a turn's markdown scaffolding is (headings, bold spans, a list item's first
    character): found once per turn, not once per draft of it."""
    spans = [m.span() for m in _HEADING_LINE_RE.finditer(text)]
    spans += [m.span(2) for m in _BOLD_RE.finditer(text)]
    spans += [(m.end(), m.end() + 1) for m in _ITEM_START_RE.finditer(text)]
    return tuple(spans)


def worth_keeping(d: Draft, speakers: tuple[str, ...]) -> bool:
    """Phatic and opinion-only drafts are no facts: an evaluation of something ("things are
    tough"), a topic without a statement, a picture's caption."""
    markup = _MARKUP_RE.search(d.entity) or not _NAME_START_RE.match(d.entity.strip())
    if markup and d.entity not in speakers:
        return False  # "**Set Goals**:*", "# Timeline", "data = request.get_json": markup or code, no one
    if d.entity not in speakers and only_in_labels(d.entity, d.turn.text):
        return False  # "7. **Track Progress**: Keep a log": a list item's title, not who keeps it
    first = d.entity.split()[0] if d.entity.split() else ""
    if d.prop in OPINION_ONLY or clauses.is_noise_word(first, acknowledgements=False):
        return False  # "Hahaha perfect" has no "Hahaha" doing anything
    if d.entity not in speakers and (first.lower() == "i" or clauses.is_bare_contraction(first)):
        return False  # "Ill go" (I'll), "I d rather": a first person no one was resolved to
    # "Dance fixes ...": no name; a speaker is named even when the name is a role ("user"), but an
    # assistant's own undated statements ("I think the book is great") are advice, not its facts
    unnamed = (d.entity[:1].islower() or d.entity_type == "concept") and (
        d.entity not in speakers or d.entity.lower() in ASSISTANT_ROLES)
    if unnamed and "'s " not in d.entity and d.time is None and d.prop != lexicon.IS_CALLED.name:
        return False  # an undated unnamed thing as subject ("kids had a blast", "colors blend nicely");
        # the name it is called by names it ("the new cafe is called Blue Door")
    if _VALUE_MARKUP_RE.search(d.value):
        return False  # "is_a: # phase", "takes place: March 25**": a parse across markdown's titles
    if d.value.lstrip()[:1] in ("'", "’"):
        return False  # "'s good", "'em to feel": a clitic cut from its word
    own = {w.lower() for w in d.entity.replace("'s", "").split()}
    empty = own | _FILLER | _BARE | (PRONOUN_VALUES - _NAMED_LATER) | _WHEN_ONLY
    if all(w.lower().strip(".,!?'") in empty for w in d.value.replace("'s", "").split()):
        return False  # "expresses Anna", "works on on", "learns a lot with them": the subject again, a
        # lone preposition, pronouns
    said_words = [w.lower().strip(".,!?'\"") for w in d.value.split()]
    if any(w in TIME_UNITS for w in said_words) and all(w in TIME_UNITS | _DETERMINERS for w in said_words):
        return False  # "at this point", "for a month", "one time": a time that stood for no object
    verb = d.prop.split("_")[0]
    # the property's verb, or a phrasal verb again, particle and all ("quits: give up", "meets:
    # hang out"; "feels: accepted" is what was felt)
    repeated = {verb, verb[:-1], verb[:-2], d.prop}
    if d.pred is not None and (particles := {c.lower_ for c in d.pred.children if c.dep_ == "prt"}):
        repeated |= {d.pred.lower_, d.pred.lemma_.lower(), *particles}
    said = [w.lower() for w in d.value.split()]
    if all(w in repeated or w in DISCOURSE or w in _NO_OBJECT for w in said):
        return False  # "feels feel", "eats: to eat", "gets up: get up": the verb again, nothing stated
    # what a speaker says of the other speaker ("you're so brave") is a reaction, not the other's
    # own account; their facts come from their own turns (the name they are addressed by is one)
    return d.prop == "goes_by" or not (d.entity != d.turn.speaker and d.entity in speakers)


def _frame(state: ExtractState, d: Draft, value: str, n: int) -> EventFrame:
    """The event frame of draft ``d`` whose cleaned value is ``value``."""
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
            owner = possessor(obj, d.turn.speaker, "")
            label = f"{owner}'s {obj.lower_}" if owner else (obj.text if obj.pos_ == "PROPN" else None)
            if label and label not in participants:
                participants.append(label)
    prt = next((c.lower_ for c in pred.children if c.dep_ == "prt"), "")
    action = f"{clauses.lemma(pred)} {prt}".strip() + f": {value}"
    manner = clauses.manner_of(pred)
    if d.prop == "means_of_transport":
        manner = f"by {value}"
    return EventFrame(
        id=f"{state.episode.id}:V{n}", conv_id=state.episode.conv_id, episode_id=state.episode.id,
        action=action[:160], participants=tuple(participants), time=d.time.iso if d.time else None,
        time_text=d.time.text if d.time else None, place=place, cause=clauses.cause_of(pred),
        manner=manner, source_turn_ids=(d.turn.id,),
    )
