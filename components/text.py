"""Escaping of user-written and model-written text before it reaches HTML or Markdown.

Two sinks, two functions:

* ``esc(text)``  — for HTML we build ourselves (transcripts, highlights, chips). Every piece of
  data goes through ``html.escape``; only our own tags and class names are literal.
* ``md(text)``   — for Markdown sinks (``st.markdown``, captions, labels, expander titles).
  Every ASCII punctuation character becomes a numeric character reference, so text such as
  ``**bold**``, ``[x](javascript:...)``, ``$x^2$``, ``:red[...]`` or ``<script>`` shows as
  typed and never becomes markup, a link, maths, colour or HTML.

Tables (``st.dataframe``), widget options and ``st.text`` render plain text and need neither.
"""

from __future__ import annotations

import html
import string

_PUNCT = frozenset(string.punctuation)
# Bidirectional overrides and isolates can visually reorder text ("trip\u202egnp.exe");
# show them as visible markers instead of letting them act.
_BIDI = {c: f"\\u{ord(c):04x}" for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"}


def defuse_bidi(text: str) -> str:
    if any(c in text for c in _BIDI):
        return "".join(_BIDI.get(c, c) for c in text)
    return text


def esc(text: object) -> str:
    """HTML-escape any value (quotes included) for text content and attribute values."""
    return html.escape(defuse_bidi("" if text is None else str(text)), quote=True)


def md(text: object) -> str:
    """Escape any value for a Markdown sink: it renders exactly as typed, as plain text."""
    raw = defuse_bidi("" if text is None else str(text))
    out = []
    for ch in raw:
        if ch in _PUNCT:
            out.append(f"&#{ord(ch)};")
        elif ch == "\n":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def shorten(text: object, limit: int = 80) -> str:
    """One line, at most ``limit`` characters (for labels and options; not escaped)."""
    flat = " ".join(("" if text is None else str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def anchor_id(turn_id: str, prefix: str = "turn") -> str:
    """A safe HTML id for a turn: letters, digits and dashes only."""
    safe = "".join(c if c.isalnum() else "-" for c in turn_id)
    return f"{prefix}-{safe}"
