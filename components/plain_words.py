"""A trace's internals said in plain words, for people who never saw the query layer:

* a plan requirement as a sentence ("Looking for: where Maya takes place") instead of
  ``R1 [target] Maya (person) takes_place``;
* a record as ``entity · property · value`` with who said it and when;
* the answer's support level as a short sentence.

Pure functions over the models: no Streamlit, no HTML (callers escape for their sink).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from memory_core.models import Modality, Record, Requirement, SupportLevel

# What the question asks for (the planner's answer target) -> the question word of the sentence.
ASKS_FOR: dict[str, str] = {
    "location": "where", "time": "when", "entity": "who or what", "count": "how many",
    "explanation": "why", "boolean": "whether", "likelihood": "whether", "list": "all that",
    "value": "what",
}
# A requirement's role -> how its sentence starts.
ROLE_START: dict[str, str] = {"target": "Looking for", "constraint": "Only where",
                              "bridge": "First finding out"}


def words(name: str | None) -> str:
    """``takes_place`` -> ``takes place``."""
    return " ".join(str(name or "").replace("_", " ").split())


def requirement_sentence(i: int, r: Requirement, answer_target: str = "value") -> str:
    """One requirement as a sentence, numbered as the page numbers them (R1, R2, …)."""
    start = ROLE_START.get(r.role, "Looking for")
    ask = ASKS_FOR.get(answer_target, "what") if r.role == "target" else ""
    body = " ".join(p for p in (ask, r.entity or "", words(r.property), r.value or "") if p)
    if r.role == "bridge":
        body = " ".join(p for p in ("who or what", r.entity or "", "is", r.value and f"({r.value})") if p)
    elif r.role == "constraint" and r.entity and not r.property and not r.value:
        body = f"{r.entity} is part of it"  # "What did Ana lend Ben?": R2 · Only where: Ben is part of it
    if r.condition:
        body += f", {r.condition}"
    if r.depends_on is not None:
        body += f" (using the answer to R{r.depends_on + 1})"
    return f"R{i + 1} · {start}: {body or 'whatever the whole question asks'}"


# A record's modality, when it is not a plain fact, said after it: "I've never used X" is stored
# as `user · uses · X` with modality negated, and must not read as if X was used.
MODALITY_WORDS: dict[Modality, str] = {
    Modality.NEGATED: "denied", Modality.PLANNED: "planned", Modality.DESIRED: "wished for",
    Modality.HYPOTHETICAL: "hypothetical",
}


def record_line(record: Record) -> str:
    """``Maya · takes class · pottery`` (the condition, if any, after a comma; a modality other
    than observed in brackets: ``user · uses · X (denied)``)."""
    line = " · ".join(p for p in (str(record.entity), words(record.property), str(record.value)) if p)
    condition = getattr(record, "condition", None)
    if condition:
        line += f", if {str(condition).removeprefix('if ')}"
    mode = MODALITY_WORDS.get(record.modality)
    return f"{line} ({mode})" if mode else line


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def day_text(iso: str) -> str:
    """``2023-07-29`` -> ``29 July 2023``, ``2023-07`` -> ``July 2023``; anything else as given."""
    parts = iso.split("-")
    if not all(p.isdigit() for p in parts) or not 1 <= len(parts) <= 3 or len(parts[0]) != 4:
        return iso
    if len(parts) >= 2 and not 1 <= int(parts[1]) <= 12:
        return iso
    month = _MONTHS[int(parts[1]) - 1] if len(parts) >= 2 else ""
    return " ".join(p for p in (str(int(parts[2])) if len(parts) == 3 else "", month, parts[0]) if p)


def when_text(value: datetime | None) -> str:
    return "" if value is None else f"{value.day} {value:%B %Y}"


def said_by(record: Record, turn_time: Mapping[str, datetime | None],
            episode_time: Mapping[str, datetime | None]) -> str:
    """"said by Maya on 3 March 2023" from the record's speaker and its first evidence turn's
    session date (else its episode's start); missing parts are left out."""
    who = getattr(record, "source_speaker", None)
    stamp = next((turn_time[t] for t in record.evidence_turn_ids if turn_time.get(t)), None) \
        or episode_time.get(record.episode_id)
    parts = [f"said by {who}" if who else "", f"on {when_text(stamp)}" if stamp else ""]
    valid = getattr(record, "valid_time", None)
    if valid:
        parts.append(f"about {day_text(str(valid))}")
    return " ".join(p for p in parts if p)


SUPPORT_WORDS: dict[SupportLevel, str] = {
    SupportLevel.SUPPORTED: "The conversation supports this answer.",
    SupportLevel.WEAK: "The conversation only partly supports this answer: read the turns below.",
    SupportLevel.UNKNOWN: "The conversation does not support an answer: treat it as a guess.",
}
GUESS_WORDS = ("These words are in the cited turn, but nothing shows they answer the question: "
               "treat them as a guess and read the turn.")


