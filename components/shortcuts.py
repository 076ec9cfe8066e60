"""Keyboard shortcuts: a tiny custom component (v2) that turns a key press into a value.

Streamlit has no shortcuts of its own. ``pressed(keys, key=...)`` mounts an invisible
component whose inline script listens to ``keydown`` on the app's page and, for one of
``keys`` (single lower-case letters) pressed outside any text field and without Ctrl/Alt/Meta,
sets a state value ``{key, at}`` (``at`` makes every press a new value; a trigger value never
reached Python in the browser); the run that follows gets the letter back once (``None`` on
every other run: the last press seen is kept in the session). Nothing is fetched and no data
goes into the page: the script is a constant string.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import streamlit as st

_JS = """
export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const keys = String((data && data.keys) || "");
  const doc = (parentElement && parentElement.ownerDocument) || document;
  const slot = "__mnemoscopeShortcut_" + String((data && data.name) || "keys");
  if (window[slot]) doc.removeEventListener("keydown", window[slot]);
  const typing = (el) => {
    if (!el) return false;
    const tag = (el.tagName || "").toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || el.isContentEditable;
  };
  const onKey = (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    if (typing(active)) return;
    const key = String(event.key || "").toLowerCase();
    if (key.length === 1 && keys.includes(key)) {
      event.preventDefault();
      setStateValue("key", { key: key, at: Date.now() + Math.random() });
    }
  };
  window[slot] = onKey;
  doc.addEventListener("keydown", onKey);
  return () => {
    doc.removeEventListener("keydown", onKey);
    if (window[slot] === onKey) window[slot] = null;
  };
}
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    return st.components.v2.component("mnemoscope.shortcuts", html="<span></span>", js=_JS)


def pressed(keys: str, *, key: str) -> str | None:
    """The shortcut letter pressed since the last run (one of ``keys``), else ``None``."""
    if not keys.isalpha() or keys != keys.lower():
        raise ValueError(f"shortcut keys must be lower-case letters, got {keys!r}")
    result = _component()(key=key, data={"keys": keys, "name": key}, default={"key": None},
                          on_key_change=lambda: None)
    value = result.get("key") if result is not None else None
    if not isinstance(value, dict):
        return None
    letter, at = value.get("key"), value.get("at")
    seen = f"{key}__seen"
    if at is None or st.session_state.get(seen) == at:
        return None  # no press, or one already acted on
    st.session_state[seen] = at
    return letter if isinstance(letter, str) and len(letter) == 1 and letter in keys else None
