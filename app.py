"""Mnemoscope — the frame: page config, navigation, shared sidebar, then the current page.

Every page is listed explicitly with its URL path (Streamlit's legacy ``pages/`` discovery is
not used) and every page reads the current conversation from ``?conv=<id>``. Where a login is
needed (``components/auth.py``) the login gate runs before ``page.run()``: nothing is drawn
from the store until an account is logged in, and every page sees the services as that
account (``services()`` returns the principal's view).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from components import auth, icons, sidebar, theme
from components.services import base_services, services

# a local image: a ``:material/…:`` page icon makes the browser fetch the favicon from
# fonts.gstatic.com (nothing may leave the machine)
FAVICON = Path(__file__).resolve().parent / "components" / "assets" / "favicon.png"
st.set_page_config(page_title="Mnemoscope", page_icon=str(FAVICON), layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=icons.PAGE["pages/home.py"], default=True),
    st.Page("pages/load.py", title="Load & build", icon=icons.PAGE["pages/load.py"], url_path="load"),
    st.Page("pages/episodes.py", title="Episodes", icon=icons.PAGE["pages/episodes.py"], url_path="episodes"),
    st.Page("pages/records.py", title="Records", icon=icons.PAGE["pages/records.py"], url_path="records"),
    st.Page("pages/graphs.py", title="Graphs", icon=icons.PAGE["pages/graphs.py"], url_path="graphs"),
    st.Page("pages/ask.py", title="Ask", icon=icons.PAGE["pages/ask.py"], url_path="ask"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=icons.PAGE["pages/evaluate.py"], url_path="evaluate"),
    st.Page("pages/history.py", title="History", icon=icons.PAGE["pages/history.py"], url_path="history"),
    st.Page("pages/settings.py", title="Settings", icon=icons.PAGE["pages/settings.py"], url_path="settings"),
]

ADMIN_PAGES = ("load",)  # import and build: what only an admin may do

base = base_services()
principal = auth.current(base)  # None: a login is needed and nobody is logged in yet
# logged out: every page stays routable (a deep link keeps its URL through the login) but hidden
page = st.navigation(PAGES, position="sidebar" if principal is not None else "hidden")
theme.inject_css()
auth.gate(base, principal)  # the login page, then stop: no page runs before a login
svc = services()
if conv := sidebar.conversation_picker(svc):
    svc.access.record_read(svc.principal, "app", conv, f"page {page.title}")  # the audit trail's page view
auth.account_box(base, svc.principal)
sidebar.backend_badge(svc)
if page.url_path in ADMIN_PAGES and not svc.principal.can("import"):
    st.title(page.title)
    st.info(f"{page.title} imports and builds: it needs an admin account (you are {svc.principal.role}).")
    st.stop()
page.run()
