"""The evidence buffer: chosen turns in dialogue order, with highlights and a token count.

Each ``BufferTurn`` keeps the original text, speaker, session and session date-time, the
image caption and its episode. Highlights are character spans inside ``BufferTurn.text``
(the turn's text without the speaker prefix or caption) of the words that made it match:
requirement entities ("entity"), requirement values/properties ("value") and question
keywords ("keyword"). Buffer tokens are counted per turn over ``Turn.render()`` lines, the
same way the bench scorer counts them.
"""

from __future__ import annotations

from collections.abc import Iterable

from memory_core.models import BufferTurn, Highlight, Plan, Turn
from memory_core.query.context import ConversationIndex
from memory_core.query.text import STOPWORDS, WEAK_WORDS, fold, stem, word_spans, words
from memory_core.tokens import count_tokens


def highlight_terms(plan: Plan) -> dict[str, str]:
    """stem -> label for every word worth highlighting, strongest label first."""
    labels: dict[str, str] = {}
    for req in plan.requirements:
        for w in words((req.entity or "").split("'")[0]):
            if w not in STOPWORDS:
                labels.setdefault(stem(w), "entity")
    for req in plan.requirements:
        for w in words(" ".join(x for x in (req.value, req.property) if x)):
            if w not in STOPWORDS and w not in WEAK_WORDS:
                labels.setdefault(stem(w), "value")
    for w in plan.keywords:
        if w not in STOPWORDS:
            labels.setdefault(stem(fold(w)), "keyword")
    return labels


def highlights(text: str, labels: dict[str, str]) -> tuple[Highlight, ...]:
    out = []
    for start, end, w in word_spans(text):
        if w in STOPWORDS:
            continue
        label = labels.get(stem(w))
        if label is not None:
            out.append(Highlight(start=start, end=end, label=label))
    return tuple(out)


def buffer_turn(turn: Turn, episode_id: str | None, labels: dict[str, str]) -> BufferTurn:
    return BufferTurn(
        turn_id=turn.id,
        speaker=turn.speaker,
        text=turn.text,
        session=turn.session,
        session_time=turn.session_time,
        image_caption=turn.image_caption,
        episode_id=episode_id,
        highlights=highlights(turn.text, labels),
    )


def build_buffer(ci: ConversationIndex, positions: Iterable[int], plan: Plan) -> list[BufferTurn]:
    labels = highlight_terms(plan)
    out = []
    for p in sorted(set(positions)):
        e = int(ci.turn_episode[p])
        episode_id = ci.episodes[e].id if 0 <= e < len(ci.episodes) else None
        out.append(buffer_turn(ci.turns[p], episode_id, labels))
    return out


def render_line(bt: BufferTurn) -> str:
    """``speaker: text [image: caption]`` — identical to ``Turn.render()``."""
    body = bt.text
    if bt.image_caption:
        body = f"{body} [image: {bt.image_caption}]".strip()
    return f"{bt.speaker}: {body}"


def buffer_tokens(buffer: Iterable[BufferTurn]) -> int:
    return sum(count_tokens(render_line(bt)) for bt in buffer)


def render_buffer(buffer: Iterable[BufferTurn]) -> str:
    """The buffer as text for an answer model: session headers with date-times, then turns."""
    lines: list[str] = []
    session = None
    for bt in buffer:
        if bt.session != session:
            session = bt.session
            when = bt.session_time.strftime("%-d %B %Y, %H:%M") if bt.session_time else "unknown time"
            lines.append(f"--- session {bt.session} ({when})")
        lines.append(f"[{bt.turn_id}] {render_line(bt)}")
    return "\n".join(lines)
