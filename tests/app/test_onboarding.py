"""Onboarding: Home in three steps, no cost figures for offline builds, Load offering only real
samples and a format guide whose every example imports as shown."""

from __future__ import annotations

import pytest

from components.formats import FORMATS, GUIDE_KEY
from components.loading import sample_files
from memory_core.models import Source
from tests.app.conftest import SAMPLE_ID, all_text, no_errors, widget


def test_home_says_what_the_product_does_in_three_steps(open_app) -> None:
    at = open_app(conv=SAMPLE_ID)
    no_errors(at)
    text = all_text(at)
    for step in ("1 · Load", "2 · Build", "3 · Ask and inspect"):
        assert step in text
    assert "**1 · Load** ✓" in text and "**2 · Build** ✓" in text  # the sample is loaded and built
    labels = [p.proto.label for p in at.get("page_link")]
    assert "See the memory" in labels and "Ask a question" in labels


def test_offline_builds_show_no_cost_or_token_figures(open_app) -> None:
    at = open_app(conv=SAMPLE_ID)
    metrics = {m.label for m in at.metric}
    assert "Build time" in metrics
    assert not metrics & {"Cost", "Tokens in/out", "LLM calls"}


def test_load_lists_only_real_samples_and_documents_each_format(open_app) -> None:
    names = [p.name for p in sample_files()]
    assert names and "hostile_conversation.json" not in names
    at = open_app("pages/load.py", conv=SAMPLE_ID)
    no_errors(at)
    assert widget(at.selectbox, "Sample file").options == names
    assert any(e.label.startswith("File formats") for e in at.expander)
    at.session_state[GUIDE_KEY] = True  # the guide is drawn when opened
    at.run()
    assert len(at.get("download_button")) == len(FORMATS)
    codes = [c.value.strip() for c in at.code]
    assert all(f.example.strip() in codes for f in FORMATS)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.key)
def test_every_format_example_imports_as_shown(fmt, app_services) -> None:
    for chosen in (fmt.key, None):  # named, and detected from the content
        found = app_services.imports.preview(Source.upload(fmt.file_name, fmt.example.encode()), fmt=chosen)
        assert found.format == fmt.key, found
        assert found.conversations and all(c.turns >= 2 for c in found.conversations), found
