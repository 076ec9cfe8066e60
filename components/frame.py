"""Guard against Streamlit's legacy ``pages/`` discovery.

The app's pages live in ``pages/`` and are listed explicitly by ``st.navigation`` in
``app.py``. Streamlit still takes its legacy path whenever it believes the app uses a
``pages/`` folder — on a fresh server until some session has called ``st.navigation``, and
in ``AppTest`` on every run — and then executes a deep-linked page such as
``pages/records.py`` directly, without the frame (no sidebar, no conversation, file-name
navigation). ``ensure_frame()`` detects that case, switches the legacy mode off and runs
``app.py`` in place: the frame's ``st.navigation`` resolves the same page (the URL path hashes
to the same page in both modes) and runs it inside the frame; the legacy run then stops.
A rerun would also work but would drop a button press that triggered this run.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

APP = Path(__file__).resolve().parent.parent / "app.py"


def ensure_frame() -> None:
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()
