"""Episodes: a timeline over real dates, the records and turns of a selected episode, then the
rest of the transcript (the selected episode's turns are not drawn twice) with coloured
episode bands."""

import streamlit as st

from components import data, links, sort_table, timeline, transcript
from components.services import services
from components.state import follow_url, require_conv, write_url
from components.text import md, shorten

svc = services()
conv = require_conv()
st.title("Episodes")

convo = data.conversation(svc, conv)
episodes = data.episodes(svc, conv)
if not episodes:
    st.info("This conversation has no memory yet: build it on the Load & build page.")
    st.page_link("pages/load.py", label="Load & build", query_params={"conv": conv})
    st.stop()
labels = data.episode_labels(episodes)

cols = st.columns(3)
cols[0].metric("Sessions", len(convo.sessions))
cols[1].metric("Episodes", len(episodes))
cols[2].metric("Turns per episode", f"{sum(len(e.turn_ids) for e in episodes) / len(episodes):.1f}")

ids = [e.id for e in episodes]
follow_url("episode_pick", "episode", ids)  # a timeline click sets the pick first (a callback)
timeline.timeline(timeline.payload(convo.sessions, episodes, labels,
                                   selected=st.session_state["episode_pick"]),
                  key="timeline", pick_key="episode_pick")
by_id = {e.id: e for e in episodes}
chosen = st.selectbox(
    "Episode", ids, key="episode_pick",
    format_func=lambda i: f"{labels[i]} — {shorten(', '.join(by_id[i].theme[:4]) or '—', 70)}",
)

write_url("episode_pick", "episode", chosen)
episode = by_id[chosen]
records = data.records(svc, conv, episode_id=episode.id)
st.subheader(f"{md(labels[chosen])}: {md(', '.join(episode.theme[:5]) or '—')}")
st.caption(f"{md(episode.theme_type.value)} episode · {len(episode.turn_ids)} turns · boundary: "
           f"{md(episode.boundary_reason or 'start of session')}")
# the records first, full width (beside the turns their value column was a word wide), then the
# episode's turns with the evidence highlighted
sort_table.render(("entity", "property", "value", "modality", "valid time", "confidence"),
                  data.records_frame_rows(records, labels), key="episode_records", link_column="entity",
                  href=lambda row: links.href_record(conv, str(row["id"])), max_height=320,
                  empty="No records in this episode.")
transcript.render(data.turns(svc, conv, episode.turn_ids), [episode], records,
                  evidence=data.evidence_turns(records))

st.subheader("Rest of the transcript")
sessions = [s.index for s in convo.sessions]
session = st.selectbox("Session", [*sessions, 0], index=sessions.index(episode.session),
                       format_func=lambda i: "All sessions" if i == 0 else f"Session {i}")
opened = set(episode.turn_ids)  # drawn once, above
shown = [t for t in convo.turns if session in (0, t.session) and t.id not in opened]
if session in (0, episode.session):
    st.caption(f"{md(labels[chosen])}'s {len(opened)} turns are shown above, not again here.")
transcript.render(shown, episodes, data.records(svc, conv))
