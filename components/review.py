"""The review queue and the quick correct / wrong actions on the Records page.

The queue (``memory_core.curation.review.review_queue``) shows one record at a time, lowest
confidence and most cited first, with four actions and their keys:

    c  correct  the record's confidence becomes 1.0 (an edit "confirmed in review")
    w  wrong    the record is marked wrong (an edit)
    e  edit     the record opens in the Records editor (Browse, tab "Edit")
    n  next     skip it for this session

Reviewed and skipped records leave the queue for the session (``REVIEWED_KEY``). Every action
is a widget callback, so the rerun that follows draws the saved state, and the page's tab and
selection are kept in session state, not reset.
"""

from __future__ import annotations

import time

import streamlit as st

from components import auth, data, links, shortcuts
from components.record_forms import remember_version, who
from components.state import write_url
from components.text import md, shorten
from memory_core.errors import ConflictError, MnemoscopeError
from memory_core.models import Record
from memory_core.record_filter import RecordFilter
from memory_core.services import MemoryServices

MODE_KEY = "records_mode"
MODES = ("Browse", "Review queue")
TAB_KEY = "records_tab"
TABS = ("Edit", "Mark wrong / delete", "Add a record", "Merge entities", "History")
REVIEWED_KEY = "review_done"
FLASH_KEY = "records_flash"
ERROR_KEY = "records_error"
PICK_KEY = "record_pick"
PENDING_KEY = "records_open_pending"
PIN_KEY = "record_pinned"  # a record kept open that the Browse results do not list
SCROLL_KEY = "records_scroll_to_editor"  # set by "Edit" in the queue: a token, used once
KEYS = "cwen"
CONFIRMED = 1.0
MAX_TRACES = 500  # newest saved traces counted for "most cited"


def record_name(r: Record) -> str:
    """A record as people read it: ``entity · property = value``."""
    return f"{shorten(r.entity, 40)} · {shorten(r.property, 40)} = {shorten(r.value, 60)}"


def reviewed(conv: str) -> dict[str, str]:
    """record id -> what the reviewer did this session (correct / wrong / skipped / edit)."""
    done = st.session_state.setdefault(REVIEWED_KEY, {})
    return done.setdefault(conv, {})


# ---------------------------------------------------------------------------- data
@st.cache_data(show_spinner=False, max_entries=16)
def _superseded(_svc: MemoryServices, conv: str, token: str) -> dict[str, str]:
    return _svc.curation.supersession(conv)


def superseded(svc: MemoryServices, conv: str) -> dict[str, str]:
    """old record id -> id of the record superseding it, computed once per memory version
    (``data.version_token``), not on every rerun of the Records page."""
    return _superseded(svc, conv, data.version_token(svc, conv))


def cited(svc: MemoryServices, conv: str) -> dict[str, int]:
    """record id -> in how many of the newest saved traces it was matched (kept for the
    session until a new trace is saved)."""
    rows = svc.queries.traces(conv, agents=None, limit=MAX_TRACES)
    token = (conv, len(rows), rows[0].id if rows else "")
    cache = st.session_state.get("review_cited")
    if not cache or cache[0] != token:
        cache = (token, svc.curation.cite_counts(conv, limit=MAX_TRACES))
        st.session_state["review_cited"] = cache
    return dict(cache[1])


# ---------------------------------------------------------------------------- actions
def _flash(message: str) -> None:
    st.session_state[FLASH_KEY] = message


# where an action was taken, as the edit log says it (``Edit.via``)
VIA_TABLE = "browse: table row"
VIA_OPEN = "browse: open record"
VIA_QUEUE = "review queue"


def act(svc: MemoryServices, conv: str, record_id: str, action: str, version: int,
        via: str = VIA_QUEUE) -> None:
    """One action on a record (a widget callback: runs before the next draw); ``via`` names the
    place it was taken (``VIA_TABLE``, ``VIA_OPEN``, ``VIA_QUEUE``) for the edit log."""
    done = reviewed(conv)
    try:
        if action == "correct":
            current = svc.imports.record(record_id)
            if current.confidence < CONFIRMED:
                remember_version(svc.curation.edit_record(
                    record_id, {"confidence": CONFIRMED}, who=who(), why=f"confirmed correct in {via}",
                    expected_version=version, via=via))
            _flash(f"Confirmed {record_id} as correct.")
        elif action == "wrong":
            remember_version(svc.curation.mark_wrong(record_id, who=who(), why=f"marked wrong in {via}",
                                                     expected_version=version, via=via))
            _flash(f"Marked {record_id} as wrong.")
        elif action == "restore":
            remember_version(svc.curation.restore_record(record_id, who=who(), why=f"restored in {via}",
                                                         expected_version=version, via=via))
            _flash(f"Restored {record_id}.")
        elif action == "edit":
            open_in_editor(record_id)
        elif action != "next":
            raise ValueError(f"unknown review action {action!r}")
    except ConflictError as exc:
        st.session_state[ERROR_KEY] = f"Conflict: {exc}"
        return
    except MnemoscopeError as exc:
        st.session_state[ERROR_KEY] = str(exc)
        return
    if action != "restore":
        done[record_id] = {"next": "skipped"}.get(action, action)


def open_in_editor(record_id: str) -> None:
    """Ask the Records page to switch to Browse with this record open on the Edit tab (done by
    ``apply_pending`` before the page draws its widgets, whose state cannot change after)."""
    st.session_state[PENDING_KEY] = record_id


def apply_pending() -> None:
    """Call at the top of the Records page, before the mode and tab widgets."""
    record_id = st.session_state.pop(PENDING_KEY, None)
    if record_id:
        st.session_state[MODE_KEY] = MODES[0]
        st.session_state[TAB_KEY] = TABS[0]
        st.session_state[PICK_KEY] = record_id
        st.session_state[PIN_KEY] = record_id  # kept open (pinned) even when Browse does not list it
        st.session_state[SCROLL_KEY] = f"{record_id}:{time.time()}"  # the editor comes into view
        write_url(PICK_KEY, "record", record_id)


def messages() -> None:
    """The last action's outcome (set by a callback), shown once."""
    if message := st.session_state.pop(ERROR_KEY, None):
        st.error(md(message))


# ---------------------------------------------------------------------------- drawing
def quick_actions(svc: MemoryServices, conv: str, record: Record) -> None:
    """Correct / wrong buttons for the open record (the tab and the selection stay); none
    for a viewer."""
    if not auth.can("annotate"):
        return
    status = str(record.status.value)
    row = st.container(horizontal=True, vertical_alignment="center")  # the labels keep their width
    row.button(f"✓ Correct {record.id}", key=f"q:correct:{record.id}", disabled=status != "active",
                help="Confirm it: confidence becomes 1.0 (kept in the edit log)",
                on_click=act, args=(svc, conv, record.id, "correct", record.version, VIA_OPEN))
    row.button(f"✗ Wrong {record.id}", key=f"q:wrong:{record.id}", disabled=status != "active",
                help="Mark it wrong: kept, shown as wrong, never used for answers",
                on_click=act, args=(svc, conv, record.id, "wrong", record.version, VIA_OPEN))
    row.caption(f"confidence {record.confidence:.2f} · status {md(status)}")


def superseded_note(conv: str, record: Record, by: dict[str, str],
                    names: dict[str, Record]) -> None:
    """"superseded by …" (a link) for an old record, "supersedes …" for the newer one."""
    parts: list[str] = []
    newer = by.get(record.id)
    if newer is not None:
        later = names.get(newer)
        parts.append("⤷ superseded by " + links.record_link(
            conv, newer, record_name(later) if later is not None else newer))
    older = [old for old, new in by.items() if new == record.id]
    if older:
        shown = ", ".join(links.record_link(conv, o, record_name(names[o]) if o in names else o)
                          for o in older[:5])
        parts.append("supersedes " + shown + (f" … (+{len(older) - 5})" if len(older) > 5 else ""))
    if parts:
        links.show(" · ".join(parts))


def queue(svc: MemoryServices, conv: str, names: dict[str, Record], superseded: dict[str, str],
          labels: dict[str, str], *, query: str = "", filters: RecordFilter | None = None) -> None:
    """The review queue: one record at a time with correct / wrong / edit / next (keys c w e n),
    over the active records that the search and filters above select (``query``, ``filters``)."""
    done = reviewed(conv)
    counts = cited(svc, conv)
    todo = svc.curation.review_queue(conv, skip=set(done), cited=counts, query=query, filters=filters)
    outcome = {k: sum(1 for v in done.values() if v == k) for k in ("correct", "wrong", "skipped")}
    narrowed = bool(query) or (filters is not None and not filters.is_empty())
    scope = "the active records the search and filters above select" if narrowed else \
        "every active record (narrow it with the search and filters above)"
    st.caption(f"{len(todo)} records to review: {scope}; lowest confidence, then most cited, first · "
               f"this session: {outcome['correct']} correct, {outcome['wrong']} wrong, "
               f"{outcome['skipped']} skipped · keys: c correct, w wrong, e edit, n next")
    if done and st.button("Start the queue again", key="review_reset"):
        done.clear()
        st.rerun()
    if not todo:
        st.success("Nothing left to review in this conversation.")
        return
    record = todo[0]
    key = shortcuts.pressed(KEYS, key="review_keys")
    if key is not None:
        act(svc, conv, record.id, {"c": "correct", "w": "wrong", "e": "edit", "n": "next"}[key],
            record.version)
        st.rerun()
    st.subheader(md(record_name(record)))
    episode = labels.get(record.episode_id, record.episode_id)
    links.show(" · ".join([
        links.record_link(conv, record.id), f"confidence {record.confidence:.2f}",
        f"cited by {counts.get(record.id, 0)} saved answers",
        "episode " + links.episode_link(conv, record.episode_id, episode)]))
    superseded_note(conv, record, superseded, names)
    turns = svc.imports.turns(conv, record.evidence_turn_ids, strict=False)
    for t in turns:
        st.markdown(f"**{md(t.id)} · {md(t.speaker)}**: {md(shorten(t.text, 400))}")
    c = st.columns(4)
    for col, (action, label) in zip(c, (("correct", "✓ Correct"), ("wrong", "✗ Wrong"),
                                        ("edit", "✎ Edit"), ("next", "→ Next")), strict=True):
        col.button(f"{label} {record.id} ({action[0]})", key=f"review:{action}",
                   type="primary" if action == "correct" else "secondary",
                   on_click=act, args=(svc, conv, record.id, action, record.version),
                   disabled=action in ("correct", "wrong") and not auth.can("annotate"))  # a viewer
