"""Bring a part of the page into view once: ``here(token)`` mounts an invisible component (v2)
whose script scrolls its own spot to the top of the window when ``token`` is new.

The Records page calls it above the record editor after the review queue's *Edit* (``e``):
the editor sits below the table and the episode's turns, off-screen otherwise. Tables above it
draw after the script runs, so the scroll is repeated a few times while the layout settles; a
wheel, touch or key from the user stops it. The script is a constant string and takes no data
but the token.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import streamlit as st

_JS = """
export default function (component) {
  const { data, parentElement } = component;
  const spot = parentElement.querySelector(".mn-scroll-here");
  const token = String((data && data.token) || "");
  if (!spot || !token || window.__mnemoscopeScrolled === token) return;
  window.__mnemoscopeScrolled = token;
  const doc = spot.ownerDocument || document;
  let stopped = false;
  const stop = () => { stopped = true; };
  for (const kind of ["wheel", "touchstart", "keydown"]) doc.addEventListener(kind, stop, { once: true });
  const go = () => { if (!stopped) spot.scrollIntoView({ block: "start" }); };
  for (const ms of [0, 150, 400, 900, 1600]) setTimeout(go, ms);
}
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    return st.components.v2.component("mnemoscope.scroll_here", html='<div class="mn-scroll-here"></div>',
                                      js=_JS)


def here(token: str, *, key: str = "scroll_here") -> None:
    """Scroll this spot into view (once per ``token``)."""
    _component()(key=key, data={"token": token})
