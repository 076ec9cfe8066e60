"""Plain-text transcripts: ``Speaker: text`` lines, sessions split by header lines.

Rules (read line by line, streamed; leading/trailing spaces ignored; blank lines skipped):

1. A **session header** is a line that starts with a marker — ``#`` to ``######`` followed
   by a space, or a run of at least 2 ``=`` or at least 3 ``-``, ``*`` or ``_`` — or that
   starts with ``Session N`` / ``Day N`` / ``Part N``, or that is nothing but a date-time.
   Its title (markers stripped) is the session's ``time_text``; the first date found in it
   (see ``dates.py``) is the session's time.
2. A **turn** is ``Speaker: text`` where the speaker is 1–64 characters before the first
   colon, contains a letter and does not start with a marker. A trailing
   ``[image: caption]`` becomes the turn's image caption.
3. Any other line continues the previous turn's text (joined with a newline); before the
   first turn it is an error.

Sessions are numbered 1, 2, … in file order: a header starts a new session once the
current one has turns (headers before a session's first turn: the last one with a date
wins). A session whose header has no readable date gets a warning and no time.
"""

from __future__ import annotations

import re
from datetime import datetime

from memory_core.ingest.builder import ConversationBuilder
from memory_core.ingest.common import Context, show, valid_unicode
from memory_core.ingest.reading import Opened, iter_lines
from memory_core.models import Conversation
from memory_core.timeexpr import parse_datetime, search_datetime

FORMAT = "text"
_MARKER = re.compile(r"^(#{1,6}(?=\s|$)|={2,}|-{3,}|\*{3,}|_{3,})")
_SESSION_WORD = re.compile(r"^(session|day|part)\s*#?\s*\d+\b", re.I)
_SPEAKER = re.compile(r"^(?P<speaker>[^\s:#=*_\[\-][^:]{0,63}?)\s*:(?!//)\s*(?P<text>.*)$", re.S)
_IMAGE = re.compile(r"\s*\[image:\s*(?P<caption>[^\]]*)\]\s*$", re.I)


def header_title(line: str) -> str | None:
    """The title of a session header line, or None when the line is not a header."""
    if _MARKER.match(line):
        return line.strip("#=-*_ \t").strip()
    if _SESSION_WORD.match(line):
        return line
    if speaker_line(line) is None and parse_datetime(line) is not None:
        return line
    return None


def speaker_line(line: str) -> tuple[str, str] | None:
    match = _SPEAKER.match(line)
    if match is None or not re.search(r"[^\W\d_]", match.group("speaker")):
        return None
    return match.group("speaker").strip(), match.group("text").strip()


def looks_like(head: str) -> bool:
    """The first non-blank line is a header or a turn, and a turn comes within 50 lines."""
    lines = [line.strip() for line in head.splitlines() if line.strip()][:50]
    if not lines:
        return False
    first = lines[0]
    if header_title(first) is None and speaker_line(first) is None:
        return False
    return any(header_title(line) is None and speaker_line(line) is not None for line in lines)


class _Reader:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.builder = ConversationBuilder(ctx, ctx.stem, FORMAT)
        self.session = 1
        self.session_has_turns = False
        self.header: tuple[str, datetime | None, int] | None = None  # title, time, line
        self.turn: tuple[str, list[str], int] | None = None  # speaker, text lines, line

    def line(self, number: int, raw: str) -> None:
        line = valid_unicode(self.ctx, raw.strip(), f"line {number}")
        if not line:
            return
        title = header_title(line)
        if title is not None:
            self._flush()
            if self.session_has_turns:
                self.session += 1
                self.session_has_turns = False
                self.header = None
            when = search_datetime(title)
            if self.header is None or when is not None or self.header[1] is None:
                self.header = (title, when, number)
            return
        turn = speaker_line(line)
        if turn is not None:
            self._flush()
            self._start_session(number)
            self.turn = (turn[0], [turn[1]], number)
            return
        if self.turn is None:
            raise self.ctx.error(f"line {number}", f"expected a 'Speaker: text' line or a session header, "
                                                   f"got {show(line)}")
        self.turn[1].append(line)

    def _start_session(self, number: int) -> None:
        if self.session_has_turns:
            return
        self.session_has_turns = True
        if self.header is None:
            self.ctx.warn(f"line {number}", f"session {self.session} has no header with a date; no time")
            self.builder.session(self.session, "", f"line {number}", time=None, resolved=True)
            return
        title, when, at = self.header
        if when is None:
            self.ctx.warn(f"line {at}", f"cannot read a date in the session header {show(title)}; "
                                        f"session {self.session} has no time")
        self.builder.session(self.session, title, f"line {at}", time=when, resolved=True)

    def _flush(self) -> None:
        if self.turn is None:
            return
        speaker, parts, number = self.turn
        self.turn = None
        text = "\n".join(parts)
        caption = None
        image = _IMAGE.search(text)
        if image is not None:
            caption = image.group("caption").strip() or None
            text = text[: image.start()].rstrip()
        self.builder.add_turn(self.session, speaker, text, where=f"line {number}", caption=caption)

    def finish(self) -> Conversation:
        self._flush()
        if not self.builder.turn_count:
            raise self.ctx.error("", "no 'Speaker: text' lines")
        return self.builder.build()


def parse(source: Opened, ctx: Context) -> list[Conversation]:
    reader = _Reader(ctx)
    for number, line in iter_lines(source):
        reader.line(number, line)
    return [reader.finish()]
