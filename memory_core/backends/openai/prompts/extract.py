"""Extract stage: entity-property records (and event frames) from one episode.

Builder (pure) → ``ExtractReply`` → ``to_extraction`` (pure). Records are addresses into
the episode, so the converter keeps only what it can check against the episode itself:

- entity and property must be non-empty; a first-person entity ("I", "me") becomes the
  speaker of its evidence turn, a second-person one ("you") the other speaker;
- a catch-all property the prompt rules out (talks_about, description, shares_image) is dropped;
  a record restating an earlier one (same entity, property, value) is merged into it, its
  evidence added;
- evidence ids outside the episode are removed; a record left with no evidence is dropped;
- the entity must be grounded: one of its content words occurs in the episode's turns or
  is a speaker's name;
- types and modalities outside the vocabularies are mapped or defaulted; ``valid_time`` is
  kept only as an ISO date/month/year (the wording stays in ``valid_time_text``).

Every removal or fix is a reported problem (the output counts as repaired); when most of
what the model proposed had to be dropped the output is *severe* (one repair request).
"""

# ruff: noqa: E501  (prompt text is kept one instruction per line)

from __future__ import annotations

from pydantic import Field

from memory_core.backends.openai.prompts.common import (
    FIRST_PERSON,
    Ids,
    Messages,
    Reply,
    Score,
    Text,
    Texts,
    choice,
    is_grounded,
    iso_time,
    known,
    norm_label,
    render_time,
    render_turns,
)
from memory_core.contracts import ConversationInfo, Extraction
from memory_core.llm.parsing import Checked
from memory_core.models import Episode, EventFrame, Modality, Record, Turn

ENTITY_TYPES = ("person", "organization", "place", "object", "event", "activity", "concept", "animal",
                "other")
MODALITY_ALIASES = {
    "observed": Modality.OBSERVED, "fact": Modality.OBSERVED, "actual": Modality.OBSERVED,
    "planned": Modality.PLANNED, "plan": Modality.PLANNED, "intended": Modality.PLANNED,
    "desired": Modality.DESIRED, "wish": Modality.DESIRED, "wanted": Modality.DESIRED,
    "hypothetical": Modality.HYPOTHETICAL, "uncertain": Modality.HYPOTHETICAL,
    "possible": Modality.HYPOTHETICAL, "negated": Modality.NEGATED, "negative": Modality.NEGATED,
}

SYSTEM = (
    "You build the index of a long-term conversational memory. From one episode of a "
    "conversation you list small, checkable facts, each pointing at the turns that state it. "
    "The index only helps to find the episode again later; the episode itself stays the evidence, "
    "so stay literal and never add knowledge that the turns do not contain. You answer with one "
    "JSON object and nothing else."
)

INSTRUCTIONS = """List the facts stated in the episode below, as a careful note-taker would write them down.

Records — one per fact stated, as [entity][entity_type][property: value]; a record reads as a sentence "entity property value":
- Go through the turns one by one; every turn that states something factual about the speakers' lives (an event, a plan, a wish, a preference, a view, a relation, a possession, a date, a place) yields a record for each fact.
- "entity" is who or what the fact is about. When a speaker says I, me or my, the entity is that speaker's name (or e.g. "Maya's sister" for "my sister"); when a speaker says you, it is the other speaker's name. Never use a pronoun as entity.
- "property" is a short reusable predicate of one to three words in lower case, in the third person: adds, adopts, works_as, lives_in, visits, plans_to, likes, owns, reads, started, thinks, encourages. Keep the specific verb; do not fold everything into a vague "activity", "talks_about" or "description", and do not repeat the entity inside the property.
- "value" keeps the object that carries the fact with its details, in the speakers' world: "Little Women to watch list" (not "to list"), "job at Door Dash", "kids to the museum"; replace my/your/me/you by the speakers' names; names, titles, numbers and places exactly as specific as the turns say them.
- A view about a thing or an activity ("Family time matters to me", "Running is great for my mind") is the speaker's: property "thinks", value the view in the speakers' words ("family time matters to Maya").
- Advice or encouragement to the other speaker ("Keep going after your dreams!") is the speaker's: property "encourages", value "<other speaker> to keep going after <their> dreams".
- Leave out greetings, thanks, congratulations, small talk and reactions to the other's news ("That's awesome!", "You must be thrilled"), and remarks about unnamed things ("the flowers are pretty"); an image in [image: ...] is evidence of its turn, not a record of its own.
- A fact said twice in the episode is one record whose evidence lists both turns.
- "condition" holds a qualifier that limits the fact, if any ("if it stops raining", "with her kids"), otherwise "".
- "modality": "observed" for things that are or were so, "planned" for intentions, "desired" for wishes, "hypothetical" for maybes, "negated" for things said not to be so.
- "time_text": the time expression used in the turns ("last Tuesday", "in 2019"), otherwise "". "valid_time": that time as an ISO date, month or year (2023-05-06, 2023-05, 2023), worked out from the session date when the turns allow it, otherwise "".
- "evidence": the ids of the turns that state the fact, copied from the square brackets. Only ids of this episode.
- "confidence": from 0 to 1, how plainly the turns state it.
- Never describe an image beyond what is written.

Events — one per concrete happening (something done, attended, made, bought, visited, planned): "action" (a short verb phrase), "participants" (names), "time_text", "valid_time", "place", "cause", "manner" ("" when not stated) and "evidence" as above.

Answer with JSON of this shape:
{"records": [{"entity": "...", "entity_type": "person|organization|place|object|event|activity|concept|animal|other", "property": "...", "value": "...", "condition": "", "modality": "observed|planned|desired|hypothetical|negated", "time_text": "", "valid_time": "", "evidence": ["<turn id>"], "confidence": 0.9}],
 "events": [{"action": "...", "participants": ["..."], "time_text": "", "valid_time": "", "place": "", "cause": "", "manner": "", "evidence": ["<turn id>"]}]}"""

SEVERE_DROP_SHARE = 0.5
SECOND_PERSON = frozenset({"you", "your", "yourself", "yours"})
# properties the prompt rules out: they name no fact (the offline build makes none either)
CATCH_ALL = frozenset({"talks_about", "description", "shares_image"})


class RecordItem(Reply):
    entity: Text = ""
    entity_type: Text = choice("other", ENTITY_TYPES)
    property: Text = ""
    value: Text = ""
    condition: Text = ""
    modality: Text = choice("observed", [m.value for m in Modality])
    time_text: Text = ""
    valid_time: Text = ""
    evidence: Ids = Field(default_factory=list)
    confidence: Score = 0.7


class EventItem(Reply):
    action: Text = ""
    participants: Texts = Field(default_factory=list)
    time_text: Text = ""
    valid_time: Text = ""
    place: Text = ""
    cause: Text = ""
    manner: Text = ""
    evidence: Ids = Field(default_factory=list)


class ExtractReply(Reply):
    records: list[RecordItem] = Field(default_factory=list)
    events: list[EventItem] = Field(default_factory=list)


def build_messages(episode: Episode, turns: list[Turn], info: ConversationInfo) -> Messages:
    theme = ", ".join(episode.theme) or "not named"
    time = turns[0].session_time if turns else episode.start_time
    # Only the episode itself goes in (not ``info.known_entities``, which depends on what was
    # built before): the same episode gives the same request, so a rebuild is a cache hit.
    header = (f"Conversation: {info.conv_id} (speakers: {', '.join(info.speakers) or 'unknown'})\n"
              f"Episode {episode.id}, session {episode.session}, held on {render_time(time)}\n"
              f"Theme: {theme} ({episode.theme_type.value})\n"
              f"Turns ({len(turns)}):")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{INSTRUCTIONS}\n\n{header}\n{render_turns(turns)}"},
    ]


def to_extraction(reply: ExtractReply, episode: Episode, turns: list[Turn],
                  info: ConversationInfo, origin: str = "openai") -> Checked[Extraction]:
    allowed = set(episode.turn_ids)
    by_id = {t.id: t for t in turns}
    speakers = {t.speaker for t in turns} | set(info.speakers)
    haystack = "\n".join(t.render() for t in turns) + "\n" + " ".join(speakers)
    problems: list[str] = []
    records: list[Record] = []
    seen: dict[tuple[str, str, str], int] = {}  # record key -> index in records
    for n, item in enumerate(reply.records, start=1):
        label = f"record {n}"
        evidence, outside = known(item.evidence, allowed)
        if outside:
            problems.append(f"{label}: evidence ids not in this episode: {', '.join(outside[:5])}")
        if not evidence:
            problems.append(f"{label} dropped: no evidence turn of this episode")
            continue
        entity = item.entity.strip()
        if entity.lower() in FIRST_PERSON:
            entity = by_id[evidence[0]].speaker if evidence[0] in by_id else ""
            problems.append(f"{label}: first-person entity resolved to the speaker '{entity}'")
        elif entity.lower() in SECOND_PERSON:
            said_by = by_id[evidence[0]].speaker if evidence[0] in by_id else ""
            entity = next((s for s in info.speakers if s != said_by), "")
            problems.append(f"{label}: second-person entity resolved to the other speaker '{entity}'")
        prop = norm_label(item.property)
        if not entity or not prop:
            problems.append(f"{label} dropped: empty entity or property")
            continue
        if not is_grounded(entity, haystack):
            problems.append(f"{label} dropped: entity '{entity[:40]}' does not occur in the episode")
            continue
        if prop in CATCH_ALL:
            problems.append(f"{label} dropped: catch-all property '{prop}' states no fact")
            continue
        key = (entity.lower(), prop, " ".join(item.value.lower().split()))
        if key in seen:  # a restatement: one record citing every turn that states it
            first = records[seen[key]]
            more = tuple(e for e in evidence if e not in first.evidence_turn_ids)
            records[seen[key]] = first.model_copy(update={"evidence_turn_ids": first.evidence_turn_ids + more})
            problems.append(f"{label} merged: duplicate of an earlier record (its evidence added)")
            continue
        seen[key] = len(records)
        entity_type = item.entity_type.strip().lower()
        if entity_type not in ENTITY_TYPES:
            problems.append(f"{label}: unknown entity_type '{entity_type[:20]}', using other")
            entity_type = "other"
        modality = MODALITY_ALIASES.get(item.modality.strip().lower())
        if modality is None:
            problems.append(f"{label}: unknown modality '{item.modality[:20]}', using observed")
            modality = Modality.OBSERVED
        valid_time = iso_time(item.valid_time)
        time_text = item.time_text or (item.valid_time if item.valid_time and not valid_time else "")
        speaker = by_id[evidence[0]].speaker if evidence[0] in by_id else None
        records.append(Record(
            id=f"{episode.id}:R{len(records) + 1}",
            conv_id=episode.conv_id,
            episode_id=episode.id,
            entity=entity,
            entity_type=entity_type,
            property=prop,
            value=item.value,
            condition=item.condition or None,
            modality=modality,
            valid_time=valid_time,
            valid_time_text=time_text or None,
            evidence_turn_ids=tuple(evidence),
            confidence=item.confidence,
            source_speaker=speaker,
            origin=origin,
        ))

    events: list[EventFrame] = []
    for n, event in enumerate(reply.events, start=1):
        evidence, outside = known(event.evidence, allowed)
        if outside:
            problems.append(f"event {n}: evidence ids not in this episode: {', '.join(outside[:5])}")
        if not evidence or not event.action.strip():
            problems.append(f"event {n} dropped: no action or no evidence turn of this episode")
            continue
        events.append(EventFrame(
            id=f"{episode.id}:V{len(events) + 1}",
            conv_id=episode.conv_id,
            episode_id=episode.id,
            action=event.action.strip(),
            participants=tuple(dict.fromkeys(p for p in event.participants if is_grounded(p, haystack))),
            time=iso_time(event.valid_time),
            time_text=event.time_text or None,
            place=event.place or None,
            cause=event.cause or None,
            manner=event.manner or None,
            source_turn_ids=tuple(evidence),
        ))

    proposed = len(reply.records) + len(reply.events)
    kept = len(records) + len(events)
    severe = proposed > 0 and (proposed - kept) > SEVERE_DROP_SHARE * proposed
    return Checked(Extraction(records=records, events=events), problems, severe=severe)
