"""Load & build: pick a sample or upload a file, preview it, import it, then build and watch."""

import streamlit as st

from components import build_view, loading
from components.services import available, services
from components.state import current_conv, session_settings
from components.text import md
from memory_core.errors import MnemoscopeError

svc = services()
st.title("Load & build")

source = st.radio("Source", ["Sample data", "Upload a file"], horizontal=True)
path = None
if source == "Sample data":
    files = loading.sample_files()
    path = st.selectbox("Sample file", files, format_func=lambda p: p.name) if files else None
else:
    upload = st.file_uploader("Conversation file", type=loading.UPLOAD_TYPES)
    path = loading.store_upload(upload) if upload is not None else None
choice = st.selectbox("Format", loading.FORMATS, help="Detected from the content unless you choose one.")
fmt = None if choice == "detect" else choice

if path is not None:
    info = loading.preview(svc, path, fmt)
    if info["error"]:
        st.error(md(info["error"]))
    else:
        st.caption(f"Format: **{md(info['format'] or 'unknown')}**")
        if info["preview"]:
            with st.expander("Preview", expanded=True):
                st.json(info["preview"], expanded=1)
    replace = st.checkbox("Replace a conversation with the same id")
    if st.button("Import", type="primary", disabled=bool(info["error"])):
        try:
            ids, warnings = loading.import_path(svc, path, fmt, replace)
        except NotImplementedError:
            st.info("Importing is not available in this installation yet.")
        except MnemoscopeError as exc:
            st.error(md(exc))
        else:
            for w in warnings:
                st.warning(md(w))
            if ids:
                st.query_params["conv"] = ids[0]
                st.session_state["flash"] = f"Imported {', '.join(ids)}."
                st.rerun()

if flash := st.session_state.pop("flash", None):
    st.success(md(flash))

conv = current_conv()
if conv is None:
    st.stop()
st.subheader(f"Build the memory of {md(conv)}")
settings = session_settings(svc.settings)
rebuild = st.checkbox("Rebuild sessions that are already built")
if not available(svc, "build"):
    st.info("Building is not available in this installation yet.")
elif st.button(f"Build and watch ({md(settings['backend'])} backend)", type="primary"):
    try:
        tally = build_view.watch(svc.build(conv, backend=settings["backend"], rebuild=rebuild))
    except MnemoscopeError as exc:
        st.error(md(exc))
    else:
        build_view.summary(tally)
        cols = st.columns(3)
        cols[0].page_link("pages/episodes.py", label="See the episodes", query_params={"conv": conv})
        cols[1].page_link("pages/records.py", label="See the records", query_params={"conv": conv})
        cols[2].page_link("pages/graphs.py", label="See the graphs", query_params={"conv": conv})
