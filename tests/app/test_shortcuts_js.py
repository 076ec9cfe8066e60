"""The shortcut component's script, run in Node with a stand-in document: a key press outside
text fields sets the trigger value, typing in a field or with Ctrl does not, and a re-render
replaces its listener instead of adding a second one. (AppTest cannot press keys.)"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from components.shortcuts import _JS

HARNESS = r"""
const listeners = [];
const doc = {
  activeElement: null,
  addEventListener: (type, fn) => listeners.push(fn),
  removeEventListener: (type, fn) => { const i = listeners.indexOf(fn); if (i >= 0) listeners.splice(i, 1); },
};
globalThis.window = globalThis;
globalThis.document = doc;
const mount = (module.exports);
const sent = [];
const component = { data: { keys: "cwen", name: "review_keys" }, parentElement: { ownerDocument: doc },
                    setStateValue: (name, value) => sent.push([name, value.key, typeof value.at]) };
mount(component);
mount(component);  // a re-render
const press = (key, extra) => listeners.forEach((fn) => fn(Object.assign(
  { key, ctrlKey: false, altKey: false, metaKey: false, repeat: false, preventDefault() {} }, extra || {})));
press("c"); press("W"); press("x"); press("n", { ctrlKey: true });
doc.activeElement = { tagName: "INPUT" }; press("e");
doc.activeElement = { tagName: "DIV", isContentEditable: false }; press("e");
console.log(JSON.stringify({ sent, listeners: listeners.length }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_keys_trigger_only_outside_text_fields() -> None:
    script = _JS.replace("export default function", "module.exports = function") + HARNESS
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"sent": [["key", "c", "number"], ["key", "w", "number"], ["key", "e", "number"]],
                      "listeners": 1}


def test_only_lower_case_letters_are_shortcut_keys() -> None:
    from components.shortcuts import pressed

    with pytest.raises(ValueError, match="lower-case letters"):
        pressed("C!", key="bad")
