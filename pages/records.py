"""Records: search, filter, sort and page through the records; open one to see its episode with
the evidence turns highlighted; edit, add, mark wrong, delete, merge entities."""

import streamlit as st

from components import data, links, record_forms, record_table, transcript
from components.services import call, services
from components.state import query_param, require_conv
from components.text import md

svc = services()
conv = require_conv()
st.title("Records")
record_forms.flash()

facets = call(svc.curation.record_facets, conv)
query, filters, sort, page_size = record_table.filters_ui(facets)
result = call(svc.curation.search_records, conv, query=query, filters=filters, sort=sort,
              page=record_table.current_page(), page_size=page_size)
episodes = data.episodes(svc, conv)
labels = data.episode_labels(episodes)
picked = record_table.table(result.rows, labels)
record_table.pager(result.total, page_size)

ids = [r.id for r in result.rows]
wanted = query_param("record")
if wanted and wanted not in ids:
    ids.insert(0, wanted)  # a shared link to one record opens it even when it is on another page
if not ids:
    st.stop()
choice = record_table.picker(ids, {r.id: r for r in result.rows}, picked, wanted)
record = call(data.record, svc, choice)
episode = next((e for e in episodes if e.id == record.episode_id), None)

st.subheader(f"{md(record.entity)} · {md(record.property)} = {md(record.value)}")
links.record_caption(conv, record, labels.get(record.episode_id, record.episode_id))
links.page_link_entity(conv, record.entity)
if episode is not None:
    transcript.render(data.turns(svc, conv, episode.turn_ids), [episode], [record],
                      evidence=record.evidence_turn_ids)

record_forms.annotator_box()
edit, status, add, merge = st.tabs(["Edit", "Mark wrong / delete", "Add a record", "Merge entities"])
with edit:
    record_forms.edit_form(svc, record)
with status:
    record_forms.status_actions(svc, record)
with add:
    if episode is not None:
        record_forms.create_form(svc, conv, episode, data.turns(svc, conv, episode.turn_ids))
with merge:
    names = [name for name, _ in facets.get("entity", [])]
    record_forms.merge_form(svc, conv, names)
