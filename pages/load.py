"""Load & build: pick a sample or upload a file, preview it, import it, then build and watch."""

import streamlit as st

from components import build_view, forget, formats, loading, warmup
from components.services import services, session_services
from components.state import current_conv, session_settings
from components.text import md
from memory_core.errors import MnemoscopeError

svc = services()
st.title("Load & build")

formats.guide()
source = loading.choose_source()
choice = st.selectbox("Format", loading.FORMATS, help="Detected from the content unless you choose one.")
fmt = None if choice == "detect" else choice
if source is not None:
    found = loading.preview(svc, source, fmt)
    if found.info is None:
        st.error(md(found.error or ""))
    else:
        loading.show_preview(found.info)
    replace = st.checkbox(loading.REPLACE_LABEL)
    if st.button("Import", type="primary", disabled=bool(found.error)):
        try:
            result = loading.import_source(svc, source, fmt, replace)
        except MnemoscopeError as exc:
            st.error(md(exc))
        else:
            st.session_state["load_flash"] = [f"Imported {', '.join(result.ids)}.", *result.warnings]
            st.query_params["conv"] = result.ids[0]
            st.rerun()

for i, line in enumerate(st.session_state.pop("load_flash", [])):
    (st.success if i == 0 else st.warning)(md(line))

loading.cluster_progress(svc)  # a cluster build's per-conversation state, while it runs

conv = current_conv()
if conv is None:
    st.stop()
st.subheader(f"Build the memory of {md(conv)}")
settings = session_settings(svc.settings)
rebuild = st.checkbox("Rebuild sessions that are already built")
if st.button(f"Build and watch ({md(settings['backend'])} backend)", type="primary"):
    try:
        tally = build_view.watch(session_services().builds.build(conv, rebuild=rebuild))
    except MnemoscopeError as exc:
        st.error(md(exc))
    else:
        build_view.summary(tally)
        warmup.start(svc, conv)  # the first question need not build the index
        cols = st.columns(3)
        for col, (path, label) in zip(cols, [("pages/episodes.py", "See the episodes"),
                                             ("pages/records.py", "See the records"),
                                             ("pages/graphs.py", "See the graphs")], strict=True):
            col.page_link(path, label=label, query_params={"conv": conv})

forget.delete_panel(svc, conv)
