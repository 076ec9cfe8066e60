"""Segment stage: cut one session into contiguous, theme-coherent episodes.

Builder (pure) → ``SegmentReply`` → ``to_episodes`` (pure). The converter enforces the
contract — every turn of the session in exactly one episode, in order — by anchoring each
episode at the start turn the model named: gaps join the preceding episode, overlaps are
clipped, unknown or reversed spans are dropped. Each such fix is reported as a problem (the
output counts as repaired); spans that leave much of the session uncovered are *severe*
(one repair request), and a reply with no usable span at all is unusable.
"""

# ruff: noqa: E501  (prompt text is kept one instruction per line)

from __future__ import annotations

from pydantic import Field

from memory_core.backends.openai.prompts.common import (
    Messages,
    Reply,
    Text,
    Texts,
    choice,
    render_time,
    render_turns,
)
from memory_core.contracts import ConversationInfo
from memory_core.llm.parsing import Checked
from memory_core.models import Episode, Session, ThemeType

SYSTEM = (
    "You organise a conversation into episodes for a long-term memory. An episode is a run of "
    "consecutive turns held together by one subject: a person or thing, an event, a plan, or a "
    "topic. Episodes are the units the memory later hands back as evidence, so each must read "
    "sensibly on its own. You answer with one JSON object and nothing else."
)

INSTRUCTIONS = """Divide the session below into episodes.

How to cut:
- Start a new episode only where the conversation clearly moves on to a different subject and stays there.
- A change of speaker is not a reason to cut. Greetings, thanks, questions back and short reactions belong to the episode they respond to.
- Prefer episodes of several turns; a single-turn episode is fine only for a turn that opens a subject nobody follows up.
- Every turn id listed must fall in exactly one episode; episodes follow each other without gaps or overlaps, in the order of the session.
- Use the turn ids exactly as written inside the square brackets.

For each episode give:
- "start" and "end": the ids of its first and last turn,
- "theme": a short name for its subject (a few words),
- "theme_type": "entity" (about a person, pet, object or place), "event" (about something that happened or will happen) or "topic" (a general subject),
- "keywords": two to five key phrases found in the turns,
- "reason": why the episode starts here ("session start" for the first one).

Answer with JSON of this shape:
{"episodes": [{"start": "<first turn id>", "end": "<last turn id>", "theme": "...", "theme_type": "entity|event|topic", "keywords": ["..."], "reason": "..."}]}"""

UNCOVERED_LIMIT = 0.25  # share of turns the model's own spans may miss before a repair request


class EpisodeSpan(Reply):
    start: Text = ""
    end: Text = ""
    theme: Text = ""
    theme_type: Text = choice("topic", [t.value for t in ThemeType])
    keywords: Texts = Field(default_factory=list)
    reason: Text = ""


class SegmentReply(Reply):
    episodes: list[EpisodeSpan] = Field(default_factory=list)


def build_messages(session: Session, info: ConversationInfo) -> Messages:
    header = (f"Conversation: {info.conv_id} (speakers: {', '.join(info.speakers) or 'unknown'})\n"
              f"Session {session.index}, held on {render_time(session.time, session.time_text)}\n"
              f"Turns ({len(session.turns)}):")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{INSTRUCTIONS}\n\n{header}\n{render_turns(session.turns)}"},
    ]


def episode_id(conv_id: str, session: int, number: int) -> str:
    return f"{conv_id}:S{session}:E{number}"


def to_episodes(reply: SegmentReply, session: Session, info: ConversationInfo) -> Checked[list[Episode]]:
    turns = list(session.turns)
    position = {t.id: i for i, t in enumerate(turns)}
    problems: list[str] = []
    spans: list[tuple[int, int, EpisodeSpan]] = []
    for n, span in enumerate(reply.episodes, start=1):
        start, end = position.get(span.start.strip()), position.get(span.end.strip())
        if start is None or end is None:
            unknown = [x for x in (span.start, span.end) if x.strip() not in position]
            problems.append(f"episode {n} names turn id(s) not in this session: {', '.join(unknown)}")
            continue
        if start > end:
            problems.append(f"episode {n} starts ({span.start}) after it ends ({span.end})")
            continue
        spans.append((start, end, span))
    if not turns:
        return Checked([], problems)
    if not spans:
        problems.append("no episode names a valid start and end turn of this session")
        return Checked(None, problems)

    if [s[0] for s in spans] != sorted(s[0] for s in spans):
        problems.append("episodes are not in session order")
    spans.sort(key=lambda s: (s[0], -s[1]))
    covered = [0] * len(turns)
    for start, end, _ in spans:
        for i in range(start, end + 1):
            covered[i] += 1
    missing = [turns[i].id for i, c in enumerate(covered) if c == 0]
    doubled = [turns[i].id for i, c in enumerate(covered) if c > 1]
    if missing:
        problems.append(f"turns in no episode: {_ids(missing)}")
    if doubled:
        problems.append(f"turns in more than one episode: {_ids(doubled)}")

    # Anchor an episode at every distinct start; each runs to the turn before the next start.
    anchors: list[tuple[int, EpisodeSpan]] = []
    for start, _, span in spans:
        if anchors and anchors[-1][0] == start:
            continue
        anchors.append((start, span))
    if anchors[0][0] != 0:
        anchors[0] = (0, anchors[0][1])
    episodes: list[Episode] = []
    for k, (start, span) in enumerate(anchors):
        stop = anchors[k + 1][0] if k + 1 < len(anchors) else len(turns)
        theme_type = _theme_type(span.theme_type)
        if theme_type is None:
            problems.append(f"episode {k + 1}: unknown theme_type '{span.theme_type}', using topic")
            theme_type = ThemeType.TOPIC
        theme = tuple(dict.fromkeys(p for p in [span.theme, *span.keywords] if p))
        if not span.theme:
            problems.append(f"episode {k + 1} has no theme")
        episodes.append(Episode(
            id=episode_id(info.conv_id, session.index, k + 1),
            conv_id=info.conv_id,
            session=session.index,
            turn_ids=tuple(t.id for t in turns[start:stop]),
            theme=theme,
            theme_type=theme_type,
            boundary_reason=span.reason or ("session start" if k == 0 else "topic shift"),
            boundary_score=0.0 if k == 0 else 1.0,
            start_time=turns[start].session_time or session.time,
        ))
    severe = len(missing) > max(2, UNCOVERED_LIMIT * len(turns))
    return Checked(episodes, problems, severe=severe)


def _theme_type(value: str) -> ThemeType | None:
    try:
        return ThemeType(value.strip().lower())
    except ValueError:
        return None


def _ids(ids: list[str], limit: int = 8) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
