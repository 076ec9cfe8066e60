"""Drafts -> records and event frames: ids, de-duplication, one frame per event predicate.

A draft becomes a record unless an equal one (entity, property, value, modality, turn) came
before. A draft of an event property, or one with a time, whose predicate is a verb gives an
event frame (once per predicate): action "<verb> [particle]: <value>", the participants (every
entity of a draft of that predicate, named people in its subtree, "with" companions), the first
place named, cause and manner.
"""

from __future__ import annotations

from memory_core.construct import clauses
from memory_core.construct.drafts import Draft, ExtractState
from memory_core.construct.subjects import possessor
from memory_core.contracts import Extraction
from memory_core.models import EventFrame, Record, Turn


def finish(state: ExtractState, turns: list[Turn]) -> Extraction:
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


def _frame(state: ExtractState, d: Draft, n: int) -> EventFrame:
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
