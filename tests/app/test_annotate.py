"""Annotating: after "Save" the record picker shows the saved value (its label refreshes) and
keeps the same record open."""

from __future__ import annotations

from tests.app.conftest import SAMPLE_ID, button, no_errors, widget


def test_saving_refreshes_the_record_pickers_label(open_app, app_services) -> None:
    record = app_services.curation.search_records(SAMPLE_ID, page_size=12).rows[11]
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.selectbox, "Open record").set_value(record.id).run()
    widget(at.text_area, "Value").input("a freshly saved value")
    widget(at.text_input, "Why", form="edit:").input("label test")
    button(at, f"Save changes to {record.id}").click().run()
    no_errors(at)
    picker = widget(at.selectbox, "Open record")
    assert picker.value == record.id  # the same record stays open
    label = picker.options[picker.index]
    assert label.endswith("= a freshly saved value"), label
