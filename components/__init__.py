"""Reusable Streamlit drawing pieces for the pages (pages -> components -> memory_core).

Every function that turns user-written or model-written text into HTML or Markdown goes
through ``components.text`` (``esc`` for HTML, ``md`` for Markdown) — nothing else in the
front end passes ``unsafe_allow_html``.
"""
