"""Load & build draws its heavy, rarely opened parts only when opened (lazy expanders): the
format guide's highlighted examples and templates, the preview's first turns. Closed, the page
holds no code block (no syntax highlighter to load) and no data grid."""

from __future__ import annotations

from components.formats import FORMATS, GUIDE_KEY
from tests.app.conftest import SAMPLE_ID, no_errors


def test_closed_guide_and_first_turns_draw_nothing_until_opened(open_app) -> None:
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    no_errors(at)
    labels = [e.label for e in at.expander]
    assert any(label.startswith("File formats") for label in labels)
    assert any(label.startswith("First turns of") for label in labels)
    assert not at.code and not at.get("download_button") and not at.tabs
    assert not at.dataframe  # the preview's conversations are a light HTML table, its first turns closed
    assert any('class="mn-table"' in h.proto.body for h in at.get("html"))
    at.session_state[GUIDE_KEY] = True
    at.session_state["preview_first_turns"] = True
    at.run()
    no_errors(at)
    assert len(at.code) == len(FORMATS) and len(at.get("download_button")) == len(FORMATS)
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) > 0
