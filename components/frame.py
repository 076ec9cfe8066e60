"""Guard against Streamlit's legacy ``pages/`` discovery.

The app's pages live in ``pages/`` and are listed explicitly by ``st.navigation`` in
``app.py``. Streamlit still runs its legacy discovery until some session has called
``st.navigation``: on a fresh server, the very first request for a deep link such as
``/records`` would execute ``pages/records.py`` directly, without the frame (no sidebar, no
conversation, the legacy file-name navigation). ``ensure_frame()`` detects that case, turns the
legacy mode off and reruns, so the request goes through ``app.py`` to the same page (the URL
path hashes to the same page in both modes).
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def ensure_frame() -> None:
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
