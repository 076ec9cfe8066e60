"""Growing a known conversation: new sessions, or turns added to its last session.

    grow(store, incoming, file)                   -> Growth   (``import --append``)
    remember_turns(store, limits, conv_id, turns,  -> Growth   (the MCP ``remember`` tool)
                   session=None, when=None)

``incoming`` is the conversation as read from a file: the whole grown conversation or only
its new sessions. Each of its sessions the store already holds must be the stored one,
unchanged, or — the last stored session only — the stored turns followed by new ones. Its
sessions after the last stored one are new. Anything else (an older session edited, a gap,
a turn id used twice) is refused with one line naming the session or turn; nothing is
written then. What is new is saved in one transaction (``store.grow_conversation``): a
session that grew loses its built mark (its memory stays until the next build redoes that
session alone), new sessions wait for the build, questions with new ids are added. Older
sessions' records, annotator edits and traces are untouched. A session whose records
annotators corrected cannot grow (rebuilding it would replace the corrections): its new
turns must go into a new session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memory_core.config import ImportLimits
from memory_core.contracts import RelationalStore
from memory_core.errors import IngestError
from memory_core.ingest.common import Context, show
from memory_core.models import Conversation, Session, Turn


@dataclass(frozen=True)
class Growth:
    conv_id: str
    sessions_added: list[int] = field(default_factory=list)
    session_extended: int | None = None  # the last session, when turns were added to it
    turn_ids: list[str] = field(default_factory=list)  # the new turns, in order
    questions_added: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.turn_ids or self.questions_added)


def _key(t: Turn) -> tuple[str, str, str, str | None]:
    return t.id, t.speaker, t.text, t.image_caption


def grow(store: RelationalStore, incoming: Conversation, file: str, warnings: Sequence[str] = (), *,
         write: bool = True) -> Growth:
    """Append what ``incoming`` adds to the stored conversation of the same id (see above);
    ``write=False`` only checks it and says what would be added."""
    conv_id = incoming.id
    where = f"conversation {show(conv_id)}"
    if not store.has_conversation(conv_id):
        raise IngestError(file, where, "not imported yet; --append grows a conversation already imported "
                                       "(import it without --append first)")
    stored = store.load_conversation(conv_id)
    by_index = {s.index: s for s in stored.sessions}
    last = max(by_index, default=0)
    stored_ids = {t.id for t in stored.turns}
    extend: Session | None = None
    new: list[Session] = []
    for s in incoming.sessions:
        old = by_index.get(s.index)
        here = f"{where}, session {s.index}"
        if old is None:
            if s.index < last:
                raise IngestError(file, here, f"is not stored and comes before the last stored session "
                                              f"({last}); only sessions after it can be added")
            new.append(s)
            continue
        old_keys = [_key(t) for t in old.turns]
        if [_key(t) for t in s.turns[:len(old_keys)]] != old_keys:
            differs = next((o[0] for o, n in zip(old_keys, s.turns, strict=False) if o != _key(n)),
                           old_keys[len(s.turns)][0] if len(s.turns) < len(old_keys) else "?")
            raise IngestError(file, here, f"differs from the stored session (turn {show(differs)}); "
                                          "only new turns at the end of the last session or new sessions "
                                          "can be appended — use --replace to re-import it")
        if len(s.turns) > len(old_keys):
            if s.index != last:
                raise IngestError(file, here, f"has new turns but is not the last stored session ({last}); "
                                              "turns can only be added to the last session")
            extend = s.model_copy(update={"turns": tuple(
                t.model_copy(update={"session_time": old.time}) for t in s.turns[len(old_keys):])})
    added = [t for s in ([extend] if extend else []) + new for t in s.turns]
    for t in added:
        if t.id in stored_ids:
            raise IngestError(file, f"{where}, session {t.session}",
                              f"turn id {show(t.id)} is already used by the stored conversation")
    if extend is not None:
        _check_unedited(store, conv_id, extend.index, file, where)
    speakers = tuple(dict.fromkeys([*stored.speakers, *(t.speaker for t in added)]))
    known_qids = {q.qid for q in stored.qa}
    qa = [q for q in incoming.qa if q.qid not in known_qids]
    if write and (added or qa):
        store.grow_conversation(conv_id, extend=extend, sessions=new,
                                speakers=speakers if speakers != stored.speakers else (), qa=qa)
    return Growth(conv_id, sessions_added=[s.index for s in new],
                  session_extended=extend.index if extend is not None else None,
                  turn_ids=[t.id for t in added], questions_added=len(qa), warnings=list(warnings))


def _check_unedited(store: RelationalStore, conv_id: str, session: int, file: str, where: str) -> None:
    """A session whose records annotators corrected is not rebuilt behind their back."""
    episodes = {e.id for e in store.episodes(conv_id, session)}
    if not episodes:
        return
    records = {r.id for r in store.records(conv_id, include_inactive=True) if r.episode_id in episodes}
    edited = [e for e in store.edits(conv_id) if e.target_id in records]
    if edited:
        raise IngestError(file, f"{where}, session {session}",
                          f"has {len(edited)} annotator edit(s); adding turns would rebuild it and replace "
                          "the corrected records — add the turns as a new session instead")


def remember_turns(store: RelationalStore, limits: ImportLimits, conv_id: str,
                   turns: Sequence[tuple[str, str]], *, session: int | None = None,
                   when: datetime | None = None) -> Growth:
    """Append ``turns`` ((speaker, text) pairs) to ``conv_id``: as a new session after the last
    (``session`` None or a higher index; dated ``when``, default now, UTC) or at the end of the
    last session (``session`` = its index). Ids are ``D<session>:<n>``, numbered on."""
    file = "remember"
    ctx = Context(file, limits)
    store.require_conversation(conv_id)
    if not turns:
        raise IngestError(file, "turns", "no turns given")
    stored = store.load_conversation(conv_id, with_qa=False)
    last = max((s.index for s in stored.sessions), default=0)
    index = last + 1 if session is None else session
    if index < 1 or (index < last):
        raise IngestError(file, "session", f"{index} is not the last session ({last}) or a new one after it")
    taken = {t.id for t in stored.turns}
    old = next((s for s in stored.sessions if s.index == index), None)
    start = len(old.turns) if old is not None else 0
    time = old.time if old is not None else (when or datetime.now(UTC).replace(tzinfo=None))
    made: list[Turn] = []
    for i, (speaker, text) in enumerate(turns):
        here = f"turns[{i}]"
        n = start + i + 1
        tid = f"D{index}:{n}"
        while tid in taken:
            n += 1000
            tid = f"D{index}:{n}"
        taken.add(tid)
        if not (speaker or "").strip():
            raise IngestError(file, here, "the speaker is empty")
        if not (text or "").strip():
            raise IngestError(file, here, "the text is empty")
        made.append(Turn(id=tid, session=index, index=start + i, speaker=speaker.strip(),
                         text=ctx.clip(text, here, f"turn {tid}"), session_time=time))
    if old is not None:
        grown = old.model_copy(update={"turns": (*old.turns, *made)})
    else:
        stamp = time.isoformat(sep=" ", timespec="minutes") if time is not None else ""
        grown = Session(index=index, time=time, time_text=stamp, turns=tuple(made))
    incoming = stored.model_copy(update={"sessions": (grown,), "qa": ()})
    return grow(store, incoming, file, ctx.warnings)
