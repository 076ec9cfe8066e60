"""Records: search, filter, sort and page through the records; open one to see its episode with
the evidence turns highlighted; confirm or mark it wrong in one click; edit it (evidence picked
from the episode's turns), read and revert its own history; add, delete, merge entities.
"Review queue" shows one record at a time, lowest confidence and most cited first, with keys
c / w / e / n. Records that a later record supersedes say so, with a link."""

import streamlit as st

from components import data, history_view, links, record_forms, record_table, review, transcript
from components import record_filters as filters_view
from components import scroll as scroll_to
from components.services import call, services
from components.state import follow_url, require_conv, write_url
from components.text import md

svc = services()
conv = require_conv()
st.title("Records")
review.apply_pending()
record_forms.flash()
review.messages()

episodes = data.episodes(svc, conv)
labels = data.episode_labels(episodes)
superseded = call(review.superseded, svc, conv)  # old id -> id of the record superseding it
names = {r.id: r for r in data.records_by_ids(svc, sorted({*superseded, *superseded.values()}))}

st.session_state.setdefault(review.MODE_KEY, review.MODES[0])
mode = st.segmented_control("Mode", review.MODES, key=review.MODE_KEY, required=True,
                            label_visibility="collapsed")
facets = call(svc.curation.record_facets, conv, as_of=filters_view.as_of_day())  # counts as of that day
query, filters, sort, page_size = filters_view.filters_ui(facets)  # both modes: the queue honours them
if mode == review.MODES[1]:
    record_forms.annotator_box()
    review.queue(svc, conv, names, superseded, labels, query=query, filters=filters)
    st.stop()

result = call(svc.curation.search_records, conv, query=query, filters=filters, sort=sort,
              page=record_table.current_page(), page_size=page_size)
# the open record is one the table lists, or one a link named, pinned (said so below)
ids, pinned = record_table.open_ids([r.id for r in result.rows])
follow_url(record_table.PICK_KEY, "record", ids)  # the open record, highlighted in the table
record_table.table(result.rows, labels, svc=svc, conv=conv, superseded=superseded, names=names, sort=sort)
record_table.pager_row(result.total, page_size)
if not ids:
    st.stop()
by_id = {**names, **{r.id: r for r in result.rows}}
choice = record_table.picker(ids, by_id, None, pinned)
write_url(record_table.PICK_KEY, "record", choice)  # the URL names the record the pane shows
record = call(data.record, svc, choice)
episode = next((e for e in episodes if e.id == record.episode_id), None)
episode_turns = data.turns(svc, conv, episode.turn_ids) if episode is not None else []

st.subheader(f"{md(record.entity)} · {md(record.property)} = {md(record.value)}")
if record.id == pinned:
    record_table.pinned_note(record.id)
links.record_caption(conv, record, labels.get(record.episode_id, record.episode_id))
review.superseded_note(conv, record, superseded, names)
links.page_link_entity(conv, record.entity)
review.quick_actions(svc, conv, record)
if episode is not None:
    transcript.render(episode_turns, [episode], [record], evidence=record.evidence_turn_ids)

if scroll := st.session_state.pop(review.SCROLL_KEY, None):
    scroll_to.here(scroll)  # opened with "Edit" from the review queue: the editor comes into view
record_forms.annotator_box()
st.session_state.setdefault(review.TAB_KEY, review.TABS[0])
edit, status, add, merge, history = st.tabs(list(review.TABS), key=review.TAB_KEY, on_change="rerun")
# only the open tab is drawn (``.open``; a tab switch reruns): four forms fewer to send and lay out
if edit.open:
    with edit:
        record_forms.edit_form(svc, record, episode_turns)
if status.open:
    with status:
        record_forms.status_actions(svc, record)
if add.open and episode is not None:
    with add:
        record_forms.create_form(svc, conv, episode, episode_turns)
if merge.open:
    with merge:
        merge_names = [str(name) for name, _ in facets.get("entity", []) if name is not None]
        record_forms.merge_form(svc, conv, merge_names)
if history.open:
    with history:
        history_view.record_history(svc, record, record_forms.who())
