"""Mnemoscope — the frame: page config, navigation, shared sidebar, then the current page.

Every page is listed explicitly with its URL path (Streamlit's legacy ``pages/`` discovery is
not used) and every page reads the current conversation from ``?conv=<id>``.
"""

from __future__ import annotations

import streamlit as st

from components import sidebar, theme
from components.services import services

st.set_page_config(page_title="Mnemoscope", page_icon=":material/neurology:", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/load.py", title="Load & build", icon=":material/upload:", url_path="load"),
    st.Page("pages/episodes.py", title="Episodes", icon=":material/view_timeline:", url_path="episodes"),
    st.Page("pages/records.py", title="Records", icon=":material/table_rows:", url_path="records"),
    st.Page("pages/graphs.py", title="Graphs", icon=":material/hub:", url_path="graphs"),
    st.Page("pages/ask.py", title="Ask", icon=":material/question_answer:", url_path="ask"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=":material/analytics:", url_path="evaluate"),
    st.Page("pages/history.py", title="History", icon=":material/history:", url_path="history"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:", url_path="settings"),
]

page = st.navigation(PAGES, position="sidebar")
theme.inject_css()
svc = services()
sidebar.conversation_picker(svc)
sidebar.backend_badge(svc)
page.run()
