"""What a question's wording asks for, by rules: the answer form and the reasoning type.

    answer_target(question)            -> "time" | "count" | "location" | "entity" | "explanation"
                                          | "likelihood" | "boolean" | "list" | "value"
                                          (a likelihood or boolean only for a polar question)
    reasoning_type(question, n_entities, together) -> (ReasoningType, Scope)
    is_hypothetical(question)          a modal, hedge or counterfactual asks for an inference
    asks_for_list(question)            a plural answer category, "list", "all the"

The offline planner builds its ``Plan`` from these; the question pipeline's premise check
reads ``answer_target`` whichever backend planned (a likelihood question is not checked).
"""

from __future__ import annotations

import re

from memory_core.models import ReasoningType, Scope
from memory_core.query.text import STOPWORDS, fold, words

# a preposition may lead: "for how long ...", "in what year ...", "until when ..."
_TEMPORAL_RE = re.compile(
    r"^\s*(?:(?:for|in|on|at|until|till|by|during)\s+)?"
    r"(?:when|what\s+(?:year|month|date|day|time|week)|which\s+(?:year|month|date|day|week)|"
    r"how\s+long|since\s+when|how\s+many\s+(?:(?:years|months|weeks|days)(?!\s+(?:a|an|per|each|every)\s)|times\s+a))"
    r"\b|\b(?:how\s+long\s+ago|"
    r"what\s+date|which\s+(?:year|month)|"
    r"what\s+(?:is|was|are|were)\s+(?:the|my|your|our|his|her|their)\s+(?:[\w-]+\s+)?deadlines?|"
    r"what\s+deadlines?)\b",
    re.IGNORECASE,
)
_COUNT_RE = re.compile(
    r"\bhow\s+(?:many|often|much)\b|\b(?:the\s+)?total\s+(?:number|amount|count|cost|sum)\b"
    r"|^\s*what\s+(?:is|was)\s+the\s+number\s+of\b",
    re.IGNORECASE,
)
_COMPARISON_RE = re.compile(
    r"\b(?:both|in\s+common|same|similar|differ|different|difference|compare|compared|more\s+than|"
    r"less\s+than|either|neither|share)\b",
    re.IGNORECASE,
)
# hypothetical mood: a modal verb or a hedge word asks for an inference, not a stated fact
_OPEN_RE = re.compile(
    r"\b(?:would|might|could|likely|unlikely|probably|possibly|perhaps)\b"
    r"|\bif\s+\w+\s+(?:had|hadn't|hadn’t|were|weren't|weren’t|did|didn't|didn’t)\b",
    re.IGNORECASE,
)
_REPORTED = frozenset({"say", "says", "said", "tell", "tells", "told", "promise", "promised", "thought"})
# a request phrased as a question ("Can you list ...", "Could you walk me through ...") asks for
# what follows it, never for yes or no
_REQUEST_RE = re.compile(
    r"^\s*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?P<verb>list|tell|show|give|walk|remind|summari[sz]e|"
    r"describe|explain|name|recall|help|outline|go\s+over|recap)\b(?:\s+me)?(?:\s+(?:through|about|of))?\s*",
    re.IGNORECASE)


def is_hypothetical(question: str) -> bool:
    """A modal, a hedge or a counterfactual asks for an inference; a modal in reported speech
    ("what she said she would buy") reports a stated fact instead, and "could you tell me ..."
    is a request."""
    question = _unrequested(question)
    for m in _OPEN_RE.finditer(question):
        before = words(question[: m.start()])[-3:]
        if m.group(0).lower() in ("would", "might", "could") and _REPORTED & set(before):
            continue
        return True
    return False


_AUXILIARY = r"(?:is|are|was|were|has|have|had|did|does|do|can|will|would|might)"
# "what/which <up to three words> <auxiliary>": the words before the verb are the answer's
# category; a plural head ("what LGBTQ+ events has ...", "in what ways is ...") asks for a list
_CATEGORY_RE = re.compile(
    r"\b(?:what|which)\s+((?:[\w+\-/]+\s+){0,2}?[\w+\-/]+)\s+" + _AUXILIARY + r"\b", re.IGNORECASE
)


def _plural(word: str) -> bool:
    w = fold(word)
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous", "'s"))


def asks_for_list(question: str) -> bool:
    """A plural answer category ("what books has ...", "what types of ...") or "list/all the"."""
    if re.search(r"\b(?:list|all\s+the)\b", question, re.IGNORECASE):
        return True
    # "what are (some of) X's <plural>": the subject after the verb is the category
    after = re.match(r"\s*(?:what|which)\s+(?:are|were)\s+((?:[\w'’+\-/]+\s*){1,5})", question, re.IGNORECASE)
    if after and any(_plural(w) for w in after.group(1).split()[:5]):
        return True
    for m in _CATEGORY_RE.finditer(question):
        head = m.group(1).split()
        if head[0].lower() in ("kind", "kinds", "type", "types", "sort", "sorts") and len(head) > 1:
            return _plural(head[0])
        if _plural(head[-1].split("/")[0]):
            return True
    return False


# question forms whose answer is gathered from several turns even with one person named:
# a reason or a manner ("why did ...", "what inspired ...", "how did ... <verb>" — the
# decision and what led to it are told across turns), a habit ("what ... does X make/do")
# or an experience summed over time ("what has X painted") — the present tense and the
# perfect ask about every occasion.
# states are held, not done on occasions: "what job does Bob have?" asks for one fact
_STATIVE = (
    r"(?:have|has|own|owns|need|needs|mean|means|know|knows|call|calls|name|names"
    r"|seem|seems|look|looks|weigh|cost|stand|stands)"
)
_GATHERING_RE = re.compile(
    r"^\s*(?:why\b|how\s+(?:did|does|do|has|have)\b(?!.*\bfeel)"
    r"|what\s+(?:inspired|motivated|prompted|caused|led|made|drove|pushed)\b"
    r"|what\b(?:\s+\w+){0,3}?\s+(?:does|do|has|have)\s+[A-Z]\w*(?:['’]s)?\s+(?!" + _STATIVE + r"\b)\w+)",
    re.IGNORECASE,
)
# a polar question opens with its verb ("would she ...", "is it likely ...", "could he ...")
_POLAR_RE = re.compile(r"^\s*(?:did|does|do|is|are|was|were|has|have|had|can|will|would|could|might|should|"
                       r"shall|may|must|isn't|wasn't|doesn't|didn't|won't|wouldn't)\b", re.IGNORECASE)
_BOOLEAN_RE = re.compile(r"^\s*(?:did|does|do|is|are|was|were|has|have|had|can|will)\b", re.IGNORECASE)


def _unrequested(question: str) -> str:
    """The question without a leading request ("could you tell me when ..." -> "when ...")."""
    m = _REQUEST_RE.match(question)
    return question[m.end():] if m else question


def answer_target(question: str) -> str:
    q = question.strip().lower()
    request = _REQUEST_RE.match(q)
    if request:  # "can you tell me when ..." asks "when ..."; "can you list ..." asks for a list
        rest = q[request.end():]
        if re.match(r"(?:what|when|where|who|whose|which|why|how)\b", rest):
            return answer_target(rest)
        return "list" if request.group("verb") == "list" or asks_for_list(rest) else "value"
    if _TEMPORAL_RE.search(q):
        return "time"
    if _COUNT_RE.search(q):
        return "count"
    # "where" asks for a place unless it opens a relative clause of a what/which/who question
    # ("what is the name of the studio where she takes classes?" asks for a name)
    if q.startswith("where") or (re.search(r"\bwhere\b", q) and not re.match(r"(?:what|which|who)\b", q)):
        return "location"
    if q.startswith("who") or re.search(r"\bwhose\b", q):
        return "entity"
    if q.startswith("why") or (q.startswith("how did") and "feel" not in q):
        return "explanation"
    polar = bool(_POLAR_RE.search(q))
    if polar and is_hypothetical(q):  # "would she likely enjoy ...?" (never "what would she ...?")
        return "likelihood"
    if _BOOLEAN_RE.search(q):
        return "boolean"
    if asks_for_list(question):
        return "list"
    return "value"


def reasoning_type(question: str, n_entities: int, together: int) -> tuple[ReasoningType, Scope]:
    """The reasoning a question needs and whether it asks for one fact or all of them.
    ``n_entities`` counts the names it mentions, ``together`` the most it asks about at once
    ("Ana and Ben", "Ana or Ben"). Two names gather only when asked about together: "What did
    Ana lend Ben?" asks one thing of Ana, Ben is where it went."""
    q = question.strip()
    if _TEMPORAL_RE.search(_unrequested(q)):  # "could you tell me when ..." is a "when" question
        if _COUNT_RE.search(q) and re.search(r"\btimes\b", q, re.IGNORECASE):
            return ReasoningType.AGGREGATION, Scope.ALL
        return ReasoningType.TEMPORAL, Scope.POINT
    if _COMPARISON_RE.search(q) and (n_entities >= 2 or re.search(r"\bboth\b|\bin\s+common\b", q, re.I)):
        return ReasoningType.COMPARISON, Scope.ALL
    if is_hypothetical(q):
        return ReasoningType.OPEN_DOMAIN, Scope.ALL
    if _COUNT_RE.search(q) or asks_for_list(q):
        return ReasoningType.AGGREGATION, Scope.ALL
    if together >= 2 or _GATHERING_RE.search(q):
        return ReasoningType.MULTI_HOP, Scope.ALL
    return ReasoningType.POINT, Scope.POINT


# "What workshop did ...", "What kind of music is ...": the one noun before the verb (lists
# are told by ``_CATEGORY_RE`` above, which takes up to three words)
_HEAD_RE = re.compile(
    r"\b(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+|sorts?\s+of\s+)?([A-Za-z+\-]+)\s+"
    r"(?:is|are|was|were|has|have|had|did|does|do)\b",
    re.IGNORECASE,
)
# "What is Anna's job?", "What are her hobbies?": the attribute asked of a named owner (the
# owner's name keeps its capital, so "What is the name of ..." is not one)
_OWNED_HEAD_RE = re.compile(
    r"\b(?i:what|which)\s+(?i:is|are|was|were)\s+(?:[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*'s?"
    r"|(?i:his|her|their|my|your))\s+(?:[a-z\-]+\s+)?([a-z\-]+)\s*\??\s*$"
)


def category_head(question: str) -> str | None:
    """The noun the question names as the answer's category ("What workshop did ..." -> workshop,
    "What is Anna's job?" -> job)."""
    m = _HEAD_RE.search(question) or _OWNED_HEAD_RE.search(question)
    if not m or m.group(1).lower() in STOPWORDS:
        return None
    return m.group(1)
