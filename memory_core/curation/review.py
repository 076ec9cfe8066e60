"""Pure parts of reviewing records: the review queue's order and supersession.

``review_queue`` orders the records an annotator should look at first: the least confident,
then the ones answers lean on most (``cite_counts``: in how many saved traces a record was
matched), then the most important.

``superseded_by`` finds knowledge updates: a record about the same entity and property said
in a later episode with another value ("I moved to Berlin" after "I live in Lisbon")
supersedes the earlier one. Only properties that hold one value at a time count: states such as
where one lives, one's job, employer, role, school, relationship status or age, and favourites
(``STATE_PROPERTY``) — what one likes, does, visits or who one's colleagues are accumulate and
never supersede — and even a state property for which one episode gives one entity two
different values is many-valued in this conversation and does not supersede.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

from memory_core.models import Modality, Record, RecordStatus, Trace

# properties that hold one value at a time (the offline lexicon's names and the usual LLM spellings)
STATE_PROPERTY = re.compile(
    r"^(?:residence|home|address|lives?(?:_in|_at)?|city|hometown|occupation|job(?:_title)?|title|role|"
    r"position|profession|employer|works?_(?:at|for|as)|relationship_status|marital_status|age|salary|"
    r"school|university|studies_at|major|spouse|partner|boss|manager|favou?rite_\w+|current_\w+)$"
)


def cite_counts(traces: Iterable[Trace]) -> Counter[str]:
    """record id -> number of traces whose matches name it (once per trace)."""
    counts: Counter[str] = Counter()
    for trace in traces:
        counts.update({m.record_id for m in trace.matches if m.record_id})
    return counts


def review_queue(records: Iterable[Record], cited: Mapping[str, int] | None = None,
                 skip: Collection[str] = ()) -> list[Record]:
    """Active records not in ``skip``: lowest confidence first, then most cited, then most
    important, then id (a stable order)."""
    cited = cited or {}
    todo = [r for r in records if r.status == RecordStatus.ACTIVE and r.id not in skip]
    return sorted(todo, key=lambda r: (r.confidence, -cited.get(r.id, 0), -r.importance, r.id))


def _key(record: Record) -> tuple[str, str]:
    return (" ".join(record.entity.split()).lower(), " ".join(record.property.split()).lower())


def _value(record: Record) -> str:
    return " ".join(record.value.split()).lower()


def superseded_by(records: Sequence[Record], episode_order: Mapping[str, int]) -> dict[str, str]:
    """old record id -> id of the latest later record that supersedes it.

    Considered: active, observed records whose episode is in ``episode_order`` (its position in
    the dialogue). A record is superseded when a record with the same entity and property
    (case and spacing ignored) comes from a later episode with a value that neither contains
    nor is contained in the earlier one (a refinement is not an update), and the
    property is a state (``STATE_PROPERTY``) that is single-valued in the conversation (no
    episode gives one entity two values of it, whatever their modality).
    """
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    said: dict[tuple[str, str, str], set[str]] = defaultdict(set)  # (entity, property, episode)
    for r in records:
        if r.status == RecordStatus.ACTIVE and r.episode_id in episode_order:
            said[(*_key(r), r.episode_id)].add(_value(r))
            if r.modality == Modality.OBSERVED:
                groups[_key(r)].append(r)
    many = {prop for (_, prop, _), values in said.items() if len(values) > 1}
    out: dict[str, str] = {}
    for (_, prop), group in groups.items():
        if len(group) < 2 or prop in many or not STATE_PROPERTY.match(prop.replace(" ", "_")):
            continue
        ordered = sorted(group, key=lambda r: (episode_order[r.episode_id], r.id))
        latest = ordered[-1]
        for r in ordered[:-1]:
            old, new = _value(r), _value(latest)
            if (episode_order[r.episode_id] < episode_order[latest.episode_id]
                    and old not in new and new not in old):  # "EP" is not an update of "EP in Altona"
                out[r.id] = latest.id
    return out
