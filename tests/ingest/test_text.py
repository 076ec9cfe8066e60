"""Plain-text transcripts: Speaker lines, session headers with dates, continuation lines."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory_core.errors import IngestError
from memory_core.ingest import load_file

TRANSCRIPT = """\
# Chat with Ben

=== Session 1 — 8 May 2023 ===
Ana: I adopted a cat last Saturday.
Ben: Lovely!
  What is her name?
Ana: Miso. [image: a grey cat on a sofa]

## 2023-06-27 10:37
Ben: How is Miso?
Ana: She opens doors now.

Session 3: 1:56 pm on 1 July, 2023
Ben: Ha!
"""


def test_sessions_turns_dates_and_captions(write):
    loaded = load_file(write("ana-ben.txt", TRANSCRIPT))
    assert loaded.format == "text" and loaded.warnings == []
    conv = loaded.conversations[0]
    assert conv.id == "ana-ben" and conv.speakers == ("Ana", "Ben")
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D3:1"]
    assert conv.turns[1].text == "Lovely!\nWhat is her name?"
    assert conv.turns[2].text == "Miso." and conv.turns[2].image_caption == "a grey cat on a sofa"
    assert [s.time for s in conv.sessions] == [
        datetime(2023, 5, 8), datetime(2023, 6, 27, 10, 37), datetime(2023, 7, 1, 13, 56)]
    assert conv.sessions[0].time_text == "Session 1 — 8 May 2023"
    assert conv.sessions[2].time_text == "Session 3: 1:56 pm on 1 July, 2023"


def test_header_without_a_date_is_a_warning(write):
    loaded = load_file(write("t.txt", "Ana: hi\nBen: hello\n----------\nAna: again\n"))
    conv = loaded.conversations[0]
    assert [s.index for s in conv.sessions] == [1, 2]
    assert all(s.time is None for s in conv.sessions)
    assert loaded.warnings[0].endswith("line 1: session 1 has no header with a date; no time")
    assert "line 3: cannot read a date in the session header ''" in loaded.warnings[1]


def test_prose_before_any_turn_names_the_line(write):
    with pytest.raises(IngestError) as err:
        load_file(write("t.txt", "## 2023-05-01\nthis is not a turn\nAna: hi\n"), fmt="text")
    assert err.value.where == "line 2"
    assert "expected a 'Speaker: text' line or a session header" in err.value.what


def test_empty_turn_is_refused(write):
    with pytest.raises(IngestError) as err:
        load_file(write("t.txt", "Ana: hi\nBen:\n"))
    assert err.value.where == "line 2" and "neither text nor image caption" in err.value.what
