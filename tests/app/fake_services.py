"""A small in-memory stand-in for ``memory_core.services.api.MemoryServices`` (no store, no
model, no build) that the Ask and Records page tests hand to the frame.

It implements the part of the protocol the frame (app.py), the Ask page and the Records page
call, with the same signatures (``tests/app/test_fake_pages.py`` checks them against the
protocol); everything is computed from one invented conversation held here: records are
searched, counted, edited (versioned, with conflicts) and asked about by word overlap. Any other
method of the protocol fails the test loudly (``NotFaked``) instead of returning nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.curation.results import RecordPage
from memory_core.curation.review import superseded_by
from memory_core.errors import ConflictError, StoreError
from memory_core.models import (
    Answer,
    BufferTurn,
    Conversation,
    Edit,
    Episode,
    Match,
    MatchKind,
    Plan,
    QAItem,
    Record,
    RecordStatus,
    Session,
    Trace,
    TraceRow,
    Turn,
)
from memory_core.record_filter import RecordFacets, RecordFilter
from memory_core.services.access import Principal, local_principal
from memory_core.summaries import BuildRun, ConversationSummary

CONV = "fake-garden"
DAY1, DAY2 = datetime(2031, 4, 2, 10, 0), datetime(2031, 5, 9, 18, 30)
LINES = [  # (session, speaker, text): an invented chat
    (1, "Ines", "I planted three apple trees behind the barn last weekend."),
    (1, "Tomas", "Nice! Which variety did you pick?"),
    (1, "Ines", "Mostly russets, my grandmother grew them too."),
    (2, "Tomas", "I finally adopted a dog, a grey whippet called Pepper."),
    (2, "Ines", "Pepper! Does she get along with your cat?"),
    (2, "Tomas", "Not yet, the cat hides on the wardrobe."),
]
FACTS = [  # (episode, entity, type, property, value, evidence, confidence)
    ("E1", "Ines", "person", "planted", "three apple trees", ("D1:0",), 0.9),
    ("E1", "Ines", "person", "apple variety", "russets", ("D1:2",), 0.4),
    ("E2", "Tomas", "person", "adopted", "a grey whippet", ("D2:0",), 0.8),
    ("E2", "Pepper", "animal", "breed", "whippet", ("D2:0",), 0.7),
    ("E2", "Tomas", "person", "cat hides on", "the wardrobe", ("D2:2",), 0.3),
]


class NotFaked(AssertionError):
    """A page called a part of the protocol this fake does not stand in for."""


class _Part:
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotFaked(f"{type(self).__name__}.{name} is not faked")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2}


@dataclass
class _Data:
    turns: list[Turn] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    traces: dict[str, Trace] = field(default_factory=dict)
    edits: list[Edit] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # "part.method", in call order

    @classmethod
    def invented(cls) -> _Data:
        data = cls()
        count: Counter[int] = Counter()
        for session, speaker, text in LINES:
            index = count[session]
            count[session] += 1
            data.turns.append(Turn(id=f"D{session}:{index}", session=session, index=index, speaker=speaker,
                                   text=text, session_time=DAY1 if session == 1 else DAY2))
        for session in (1, 2):
            data.episodes.append(Episode(id=f"{CONV}:S{session}:E1", conv_id=CONV, session=session,
                                         turn_ids=tuple(t.id for t in data.turns if t.session == session),
                                         start_time=DAY1 if session == 1 else DAY2))
        for n, (episode, entity, kind, prop, value, evidence, confidence) in enumerate(FACTS, 1):
            record_id = f"{CONV}:R{n}"
            data.records[record_id] = Record(
                id=record_id, conv_id=CONV, episode_id=f"{CONV}:S{episode[-1]}:E1", entity=entity,
                entity_type=kind, property=prop, value=value, evidence_turn_ids=evidence,
                confidence=confidence, valid_time=(DAY1 if episode == "E1" else DAY2).date().isoformat())
        return data

    def session_of(self, record: Record) -> int:
        return next(e.session for e in self.episodes if e.id == record.episode_id)


class FakeImports(_Part):
    def __init__(self, data: _Data) -> None:
        self._data = data

    def conversation_ids(self) -> list[str]:
        return [CONV]

    def list_conversations(self) -> list[ConversationSummary]:
        return [ConversationSummary(id=CONV, sessions=2, built_sessions=2, turns=len(self._data.turns),
                                    records=len(self._data.records),
                                    entities=len({r.entity for r in self._data.records.values()}))]

    def stats(self, conv_id: str | None = None) -> dict[str, int]:
        active = [r for r in self._data.records.values() if r.status != RecordStatus.DELETED]
        return {"conversations": 1, "sessions": 2, "turns": len(self._data.turns),
                "episodes": len(self._data.episodes), "records": len(active), "edits": len(self._data.edits),
                "traces": len(self._data.traces)}

    def conversation(self, conv_id: str) -> Conversation:
        sessions = tuple(Session(index=s, time=DAY1 if s == 1 else DAY2,
                                 turns=tuple(t for t in self._data.turns if t.session == s)) for s in (1, 2))
        return Conversation(id=CONV, speakers=("Ines", "Tomas"), sessions=sessions)

    def turns(self, conv_id: str, ids: Sequence[str] | None = None, *, strict: bool = True) -> list[Turn]:
        if ids is None:
            return list(self._data.turns)
        wanted = set(ids)
        found = [t for t in self._data.turns if t.id in wanted]
        if strict and len(found) < len(wanted):
            missing = sorted(wanted - {t.id for t in found})
            raise StoreError(f"conversation '{conv_id}' has no turn {missing[0]}")
        return found

    def record(self, record_id: str) -> Record:
        if record_id not in self._data.records:
            raise StoreError(f"no record '{record_id}'")
        return self._data.records[record_id]


class FakeQueries(_Part):
    def __init__(self, data: _Data) -> None:
        self._data = data

    def strategies(self) -> list[str]:
        return ["overlap", "everything"]

    def warm(self, conv_id: str) -> None:
        self._data.calls.append("queries.warm")

    def ask(self, conv_id: str, question: str, *, strategy: str | None = None,
            budget_tokens: int | None = None, now: datetime | None = None, client: str = "") -> Trace:
        """The active records sharing most words with the question; the answer is the best one's
        value, citing its evidence turns ("Unknown" when no record shares a word)."""
        self._data.calls.append("queries.ask")
        asked = _words(question)
        scored = sorted(((len(asked & _words(f"{r.entity} {r.property} {r.value}")), r.id)
                         for r in self._data.records.values() if r.status == RecordStatus.ACTIVE),
                        reverse=True)
        hits = [self._data.records[i] for n, i in scored if n > 0]
        if strategy == "everything":
            hits = hits + [r for r in self._data.records.values() if r not in hits]
        cited = tuple(hits[0].evidence_turn_ids) if hits else ()
        by_id = {t.id: t for t in self._data.turns}
        buffer = tuple(BufferTurn(turn_id=t, speaker=by_id[t].speaker, text=by_id[t].text,
                                  session=by_id[t].session, session_time=by_id[t].session_time)
                       for t in dict.fromkeys(x for r in hits for x in r.evidence_turn_ids))
        trace = Trace(
            id=f"fake-trace-{len(self._data.traces) + 1}", conv_id=conv_id, question=question,
            strategy=strategy or "overlap", backend="fake",
            plan=Plan(question=question, keywords=tuple(sorted(asked))),
            matches=tuple(Match(requirement=-1, kind=MatchKind.STRUCTURED, score=1.0 / (i + 1),
                                record_id=r.id, episode_id=r.episode_id) for i, r in enumerate(hits)),
            buffer=buffer, budget_tokens=budget_tokens, created_at=now or DAY2,
            answer=Answer(text=hits[0].value if hits else "Unknown", cited_turn_ids=cited,
                          supported=bool(hits), record_ids=(hits[0].id,) if hits else ()))
        self._data.traces[trace.id] = trace
        return trace

    def key_records(self, conv_id: str, trace: Trace, limit: int = 3) -> list[Record]:
        """The matched records in match order (the answer's own record first), ``limit`` of them."""
        self._data.calls.append("queries.key_records")
        ids = dict.fromkeys(m.record_id for m in trace.matches if m.record_id in self._data.records)
        return [self._data.records[i] for i in ids][:limit]

    def trace(self, trace_id: str) -> Trace:
        if trace_id not in self._data.traces:
            raise StoreError(f"no trace '{trace_id}'")
        return self._data.traces[trace_id]

    def traces(self, conv_id: str, *, agents: bool | None = False, limit: int = 200) -> list[TraceRow]:
        rows = [TraceRow(id=t.id, question=t.question, strategy=t.strategy, backend=t.backend,
                         created_at=t.created_at, client=t.client, kind=t.kind)
                for t in reversed(list(self._data.traces.values()))
                if agents is None or bool(t.client) == agents]
        return rows[:limit]


class FakeBuilds(_Part):
    def __init__(self, data: _Data) -> None:
        self._data = data

    def episodes(self, conv_id: str) -> list[Episode]:
        return list(self._data.episodes)

    def build_history(self, conv_id: str) -> list[BuildRun]:
        return [BuildRun(id="fake-build", conv_id=conv_id, backend="offline", finished_at=DAY2)]


class FakeCuration(_Part):
    def __init__(self, data: _Data) -> None:
        self._data = data

    def _listed(self, query: str, filters: RecordFilter | None) -> list[Record]:
        words = _words(query)
        rows = []
        for r in self._data.records.values():
            if r.status == RecordStatus.DELETED:
                continue
            if words and not words & _words(f"{r.entity} {r.property} {r.value}"):
                continue
            wanted = filters or RecordFilter()
            if wanted.entity and r.entity not in wanted.entity:
                continue
            if wanted.session and self._data.session_of(r) not in set(wanted.session):
                continue
            rows.append(r)
        return rows

    def search_records(self, conv_id: str, *, query: str = "", filters: RecordFilter | None = None,
                       sort: str = "episode", page: int = 1, page_size: int = 50) -> RecordPage:
        rows = self._listed(query, filters)
        key = sort.lstrip("-")
        if key != "episode" and rows and hasattr(rows[0], key):
            rows.sort(key=lambda r: getattr(r, key), reverse=sort.startswith("-"))
        start = (page - 1) * page_size
        return RecordPage(rows=rows[start:start + page_size], total=len(rows), page=page, page_size=page_size)

    def record_facets(self, conv_id: str, *, as_of: str | None = None) -> RecordFacets:
        rows = [r for r in self._listed("", None) if as_of is None or (r.valid_time or "") <= as_of]
        facets = {}
        for name, of in (("entity_type", lambda r: r.entity_type), ("property", lambda r: r.property),
                         ("modality", lambda r: r.modality.value), ("status", lambda r: r.status.value),
                         ("origin", lambda r: r.origin), ("session", self._data.session_of),
                         ("entity", lambda r: r.entity)):
            facets[name] = Counter(of(r) for r in rows).most_common()
        return facets

    def records(self, conv_id: str, *, episode_id: str | None = None,
                include_inactive: bool = False) -> list[Record]:
        return [r for r in self._data.records.values() if (episode_id is None or r.episode_id == episode_id)
                and (include_inactive or r.status == RecordStatus.ACTIVE)]

    def records_by_ids(self, ids: Sequence[str]) -> list[Record]:
        return [self._data.records[i] for i in ids if i in self._data.records]

    def supersession(self, conv_id: str) -> dict[str, str]:
        order = {e.id: i for i, e in enumerate(self._data.episodes)}
        return superseded_by(self.records(conv_id), order)

    def cite_counts(self, conv_id: str, *, limit: int = 500) -> dict[str, int]:
        return dict(Counter(m.record_id for t in self._data.traces.values() for m in t.matches
                            if m.record_id))

    def review_queue(self, conv_id: str, *, skip: Collection[str] = (),
                     cited: Mapping[str, int] | None = None, query: str = "",
                     filters: RecordFilter | None = None) -> list[Record]:
        rows = [r for r in self._listed(query, filters)
                if r.status == RecordStatus.ACTIVE and r.id not in skip]
        return sorted(rows, key=lambda r: (r.confidence, -(cited or {}).get(r.id, 0)))

    def record_history(self, record_id: str) -> list[Edit]:
        return [e for e in self._data.edits if e.target_id == record_id]

    def _change(self, record_id: str, changes: Mapping[str, Any], action: str, who: str, why: str,
                expected_version: int | None, via: str) -> Record:
        before = self._data.records[record_id]
        if expected_version is not None and expected_version != before.version:
            raise ConflictError(f"record '{record_id}' is at version {before.version}, "
                                f"not {expected_version}")
        after = before.model_copy(update={**changes, "version": before.version + 1})
        self._data.records[record_id] = after
        self._data.edits.append(Edit(id=f"fake-edit-{len(self._data.edits) + 1}", conv_id=CONV,
                                     target_kind="record", target_id=record_id, action=action, who=who,
                                     at=DAY2, before=before.model_dump(mode="json"),
                                     after=after.model_dump(mode="json"), why=why, via=via))
        return after

    def edit_record(self, record_id: str, changes: Mapping[str, Any], *, who: str, why: str = "",
                    expected_version: int, via: str = "") -> Record:
        return self._change(record_id, changes, "update", who, why, expected_version, via)

    def mark_wrong(self, record_id: str, *, who: str, why: str = "",
                   expected_version: int | None = None, via: str = "") -> Record:
        return self._change(record_id, {"status": RecordStatus.WRONG}, "mark_wrong", who, why,
                            expected_version, via)

    def restore_record(self, record_id: str, *, who: str, why: str = "",
                       expected_version: int | None = None, via: str = "") -> Record:
        return self._change(record_id, {"status": RecordStatus.ACTIVE}, "restore", who, why,
                            expected_version, via)


class FakeEvaluation(_Part):
    def gold_items(self, conv_id: str) -> list[QAItem]:
        return []  # no benchmark questions in the invented conversation


class FakeAccess(_Part):
    def __init__(self, data: _Data) -> None:
        self._data = data

    def record_read(self, principal: Principal, frontend: str, conv_id: str, detail: str) -> None:
        self._data.calls.append(f"access.record_read {detail}")


class FakeServices:
    """``MemoryServices`` over the invented conversation, as the local user (no login)."""

    def __init__(self, home: Path) -> None:
        self.data = _Data.invented()
        self.settings = Settings(home=home)
        self.principal = local_principal()
        self.frontend = "app"
        self.imports = FakeImports(self.data)
        self.queries = FakeQueries(self.data)
        self.builds = FakeBuilds(self.data)
        self.curation = FakeCuration(self.data)
        self.evaluation = FakeEvaluation()
        self.access = FakeAccess(self.data)

    @property
    def backend(self) -> Any:
        raise NotFaked("FakeServices.backend is not faked")

    @property
    def embedder(self) -> Any:
        raise NotFaked("FakeServices.embedder is not faked")

    def for_principal(self, principal: Principal, frontend: str) -> FakeServices:
        return self

    def with_settings(self, settings: Settings) -> FakeServices:
        return self

    def requires_login(self, bind_address: str | None) -> bool:
        return False

    def close(self) -> None:
        pass


PARTS = {"imports": FakeImports, "queries": FakeQueries, "builds": FakeBuilds, "curation": FakeCuration,
         "evaluation": FakeEvaluation, "access": FakeAccess}
