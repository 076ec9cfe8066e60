"""Where a build's sessions come from: the pure stages (segment + extract, validated).

    compute_session(backend, name, info, session, timings)
        -> generator of the session's events, returning its ``SessionResult``
    compute_conversation(conv, pending, known, backend, embedder) -> ComputedConversation
        every pure stage of the pending sessions without a store or an index (a Dask worker)

Both results are plain data (pydantic models and frozen dataclasses): a worker returns them
to the client, which commits them exactly as a local build commits its own. The build's one
commit loop takes its sessions from a ``SessionSource``:

    ComputedHere(backend, embedder)     models loaded and every stage run in this process,
                                        LLM calls accounted to the build
    Replayed(computed)                  a worker's ``ComputedConversation``: its events
                                        replayed, its vectors seeded, nothing computed again
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import defaultdict
from collections.abc import Generator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, Protocol

from memory_core.construct.embedcache import TextEmbedder, embed_texts, seed_vectors
from memory_core.construct.validate import validate_episodes, validate_extraction
from memory_core.contracts import Backend, ConversationInfo
from memory_core.errors import BuildError
from memory_core.models import Conversation, Episode, EventFrame, Record, Session, Turn
from memory_core.progress import BuildEvent, EpisodeFormed, RecordsExtracted, SessionStarted

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionResult:
    """One session's pure stages (segment + extract, validated) and the events they yielded.

    Plain data (pydantic models and frozen dataclasses): a Dask worker returns it to the
    client, which commits it exactly as a local build commits its own."""

    session: Session
    episodes: list[Episode]
    records: list[Record]
    events: list[EventFrame]
    stream: list[BuildEvent]  # SessionStarted, EpisodeFormed..., RecordsExtracted...
    seconds: float  # segment + extract


@dataclass(frozen=True)
class ComputedConversation:
    """The pure part of a conversation's build, done elsewhere (a Dask worker).

    ``pending`` are the sessions computed (by index), ``known`` the entity names the worker
    started from; ``texts``/``vectors`` every embedding it made (turns, records, entity
    names), which seed the client's embedding memo so committing embeds nothing again;
    ``timings`` the worker's stage seconds (load, embed, segment, extract)."""

    conv_id: str
    pending: tuple[int, ...]
    known: tuple[str, ...]
    sessions: dict[int, SessionResult]
    texts: list[str]
    vectors: Any  # np.ndarray (len(texts), 384) float32
    timings: dict[str, float]
    worker: str = ""


def compute_session(backend: Backend, name: str, info: ConversationInfo, session: Session,
                    timings: dict[str, float]) -> Generator[BuildEvent, None, SessionResult]:
    """Segment and extract one session (validated), yielding its events as they happen; the
    generator returns the ``SessionResult`` (``result = yield from compute_session(...)``)."""
    conv_id = info.conv_id
    t_session = time.perf_counter()
    turns = list(session.turns)
    stream: list[BuildEvent] = []

    def emit(event: BuildEvent) -> BuildEvent:
        stream.append(event)
        return event

    yield emit(SessionStarted(conv_id, session.index, turns, session.time))
    t = time.perf_counter()
    episodes = validate_episodes(conv_id, session, backend.segment(session, info), name)
    timings["segment"] += time.perf_counter() - t
    for e in episodes:
        yield emit(EpisodeFormed(conv_id, e))
    by_id = {tt.id: tt for tt in turns}
    items: list[tuple[Episode, list[Turn]]] = [(e, [by_id[i] for i in e.turn_ids]) for e in episodes]
    records: list[Record] = []
    events: list[EventFrame] = []
    seen: set[str] = set()
    t = time.perf_counter()
    results = list(backend.extract_many(items, info))  # in order; the LLM backend fans out
    if len(results) != len(items):
        raise BuildError(f"conversation '{conv_id}', session {session.index}: backend '{name}' "
                         f"returned {len(results)} extractions for {len(items)} episodes")
    for (e, _), result in zip(items, results, strict=True):
        extraction = validate_extraction(conv_id, session.index, e, result, name, seen)
        records.extend(extraction.records)
        events.extend(extraction.events)
        yield emit(RecordsExtracted(conv_id, e.id, list(extraction.records), list(extraction.events)))
    timings["extract"] += time.perf_counter() - t
    return SessionResult(session, episodes, records, events, stream, time.perf_counter() - t_session)


def compute_conversation(conv: Conversation, pending: Sequence[int], known: Sequence[str], backend: Backend,
                         embedder: TextEmbedder) -> ComputedConversation:
    """Every pure stage of a conversation's pending sessions, without a store or an index:
    model load, the turns' embedding batch, segment + extract per session (the entity names
    known so far growing session by session, as in a local build), the records' vectors and
    the vectors of the names the entity canonicalisation will compare."""
    from memory_core.construct.entities import canonicalise

    name = backend.name
    timings: dict[str, float] = defaultdict(float)
    sessions = [s for s in conv.sessions if s.index in set(pending)]
    prepare(backend, sessions, embedder, timings)
    info = conversation_info(conv, known)
    out: dict[int, SessionResult] = {}
    for session in sessions:
        gen = compute_session(backend, name, info, session, timings)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                result: SessionResult = stop.value
                break
        out[session.index] = result
        info = with_names(info, result.records)
    t = time.perf_counter()
    texts = [tt.render() for s in sessions for tt in s.turns]
    records = [r for res in out.values() for r in res.records]
    texts += [r.text() for r in records]
    asked: list[str] = []

    def remember(names: list[str]) -> Any:
        asked.extend(names)
        return embed_texts(embedder, names)

    canonicalise(conv.id, records, conv.speakers, remember, [])
    texts = list(dict.fromkeys([*texts, *asked]))
    vectors = embed_texts(embedder, texts)  # the records' batch (turns and names are memo hits)
    timings["embed"] += time.perf_counter() - t
    return ComputedConversation(conv.id, tuple(pending), tuple(known), out, texts, vectors, dict(timings))


_LOWER_WORD_RE = re.compile(r"(?<![\w'’])[a-z][a-z'’-]*[a-z]\b")
_INNER_CAPITAL_RE = re.compile(r"(?<=[a-z0-9,;] )[A-Z][A-Za-z'’-]*")  # capitalised after a lower-case word
# markdown's titles (a heading line, a bold label) are written in title case: no sign of a name there
TITLE_RE = re.compile(r"(?m)^[ \t]*#{1,6}[ \t].*$|(\*\*|__)(?!\s).+?(?<!\s)\1")
# a line in title case ("5. Q&A and Feedback", "John's Home") or a table's row is a title too
_TITLE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’&-]*")
_TITLE_SMALL = frozenset({"a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "by",
                          "from", "as", "vs", "via", "per", "into"})
# a fenced code block, to its closing fence or, left open, to the end of the text
FENCED_CODE_RE = re.compile(r"```.*?(?:```|\Z)", re.S)
# code (a fenced block, an inline span) writes names in lower case: "pip install locust"
_CODE_RE = re.compile(rf"{FENCED_CODE_RE.pattern}|`[^`\n]*`", re.S)


def word_cases(texts: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The words these texts write in lower case anywhere, and those they capitalise inside a
    sentence. Lower minus capitalised are the common words ("healthy", "dude"); a name the
    speakers capitalise wherever it stands ("at Grace's") is none of them, even when it is a
    word too. Titles do not count as sentences ("### Tips for Effective Use" leaves "use" a
    common word), nor do lines written in title case or a table's rows ("| Confirmation Bias |"),
    nor does code ("`locust -f run.py`") count at all."""
    lower: set[str] = set()
    inner: set[str] = set()
    for text in texts:
        text = _CODE_RE.sub("\n", text)
        lower.update(_LOWER_WORD_RE.findall(text))
        for line in TITLE_RE.sub("\n", text).splitlines():
            if not _titled(line):
                inner.update(w.lower() for w in _INNER_CAPITAL_RE.findall(line))
    return frozenset(lower), frozenset(inner)


def _titled(line: str) -> bool:
    """A table's row, or a line whose every word but the small ones is capitalised: a title."""
    if line.lstrip().startswith("|"):
        return True
    words = [w for w in _TITLE_WORD_RE.findall(line) if w.lower() not in _TITLE_SMALL]
    return len(words) >= 2 and all(w[0].isupper() for w in words)


def conversation_info(conv: Conversation, known: Sequence[str]) -> ConversationInfo:
    """What the stages know of ``conv``: its speakers, the entity names ``known`` from its
    earlier builds, and its ``common_words`` (over every session, built or not)."""
    lower, inner = word_cases([t.text for s in conv.sessions for t in s.turns])
    return ConversationInfo(conv.id, conv.speakers, known_entities=tuple(known),
                            common_words=lower - inner, lower_words=lower)


def with_names(info: ConversationInfo, records: Sequence[Record]) -> ConversationInfo:
    """``info`` knowing the entity names of ``records`` too (first-seen order): the next
    session's stages resolve aliases against them."""
    known = dict.fromkeys([*info.known_entities, *(r.entity for r in records)])
    return replace(info, known_entities=tuple(known))


def prepare(backend: Backend, pending: Sequence[Session], embedder: TextEmbedder,
             timings: dict[str, float]) -> None:
    """Load the models, then embed every pending turn in one batch — while the backend's
    optional ``warm(sessions)`` (the offline backend parses every turn with spaCy) runs in a
    thread beside it, the embedding on one torch thread so the two share two cores."""
    if not pending:
        return
    t = time.perf_counter()
    backend.prepare()
    timings["load"] += time.perf_counter() - t
    texts = [tt.render() for s in pending for tt in s.turns]
    thread: threading.Thread | None = None
    if backend.warms:
        def run() -> None:
            t0 = time.perf_counter()
            try:
                backend.warm(list(pending))
            except Exception:  # only a head start: the stages parse (and report) themselves
                log.warning("warming the backend failed", exc_info=True)
            timings["parse"] += time.perf_counter() - t0

        thread = threading.Thread(target=run, name="build-warm", daemon=True)
        thread.start()
    t = time.perf_counter()  # segmentation and indexing reuse these vectors
    embed_texts(embedder, texts, threads=1 if thread is not None else None)
    timings["embed"] += time.perf_counter() - t
    if thread is not None:
        t = time.perf_counter()
        thread.join()
        timings["parse_wait"] += time.perf_counter() - t



# --------------------------------------------------------------------------- session sources
class SessionSource(Protocol):
    """The pending sessions of one build, computed or replayed; the commit loop is shared."""

    def prepare(self, pending: Sequence[Session], timings: dict[str, float]) -> None:
        """Before the first session: load models / seed vectors, adding stage seconds."""

    def scope(self, conv_id: str, build_id: str) -> AbstractContextManager[Any]:
        """The context the sessions run in (LLM cost accounting when computed here)."""

    def session(self, session: Session, info: ConversationInfo,
                timings: dict[str, float]) -> Generator[BuildEvent, None, SessionResult]:
        """One pending session's events, returning its result."""

    def fresh_texts(self, result: SessionResult) -> list[str]:
        """Texts of a committed session still to embed (in the background, before indexing)."""


class ComputedHere:
    """Sessions segmented and extracted by ``backend`` in this process."""

    def __init__(self, backend: Backend, embedder: TextEmbedder) -> None:
        self.backend = backend
        self.embedder = embedder

    def prepare(self, pending: Sequence[Session], timings: dict[str, float]) -> None:
        prepare(self.backend, pending, self.embedder, timings)

    def scope(self, conv_id: str, build_id: str) -> AbstractContextManager[Any]:
        return self.backend.accounting(conv_id, f"build:{build_id}")

    def session(self, session: Session, info: ConversationInfo,
                timings: dict[str, float]) -> Generator[BuildEvent, None, SessionResult]:
        return compute_session(self.backend, self.backend.name, info, session, timings)

    def fresh_texts(self, result: SessionResult) -> list[str]:
        return [r.text() for r in result.records if r.status.value == "active"]


class Replayed:
    """Sessions a worker computed (``compute_conversation``): nothing is computed or embedded here."""

    def __init__(self, computed: ComputedConversation) -> None:
        self.computed = computed

    def check(self, conv_id: str, pending: set[int], known: tuple[str, ...]) -> Replayed:
        """Itself, when the worker computed exactly the sessions this build finds pending from
        the same entity names; else ``BuildError``."""
        c = self.computed
        if c.conv_id != conv_id or set(c.pending) != pending or c.known != known:
            raise BuildError(f"conversation '{conv_id}': the worker's result is for other pending sessions "
                             f"({sorted(c.pending)} vs {sorted(pending)}); build it again")
        return self

    def prepare(self, pending: Sequence[Session], timings: dict[str, float]) -> None:
        seed_vectors(self.computed.texts, self.computed.vectors)
        for stage, seconds in self.computed.timings.items():
            timings[f"worker_{stage}"] += seconds

    def scope(self, conv_id: str, build_id: str) -> AbstractContextManager[Any]:
        return nullcontext()  # the worker's calls were accounted where they ran

    def session(self, session: Session, info: ConversationInfo,
                timings: dict[str, float]) -> Generator[BuildEvent, None, SessionResult]:
        result = self.computed.sessions[session.index]
        yield from result.stream
        return result

    def fresh_texts(self, result: SessionResult) -> list[str]:
        return []  # the worker's vectors are seeded
