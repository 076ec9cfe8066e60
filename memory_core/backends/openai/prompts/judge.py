"""Judge stage: LoCoMo-style binary grading of a generated answer against the gold answer.

Builder (pure) → ``JudgeReply`` → ``to_verdict`` (pure). Generous on form (wording, length,
date format), strict on facts. A reply that is not JSON but plainly says CORRECT or WRONG is
accepted (``plain_verdict``); anything else is unusable.
"""

# ruff: noqa: E501  (prompt text is kept one instruction per line)

from __future__ import annotations

import re

from memory_core.backends.openai.prompts.common import Messages, Reply, Text, choice
from memory_core.llm.parsing import Checked

SYSTEM = (
    "You grade answers to questions about a conversation against a reference answer. You are "
    "lenient about form and strict about facts. You answer with one JSON object and nothing else."
)

INSTRUCTIONS = """Grade the generated answer against the reference answer.

- CORRECT when the generated answer states the same fact as the reference: other wording, extra detail, a longer sentence or another date format (e.g. "7 May 2023" for "May 7, 2023", or "the week before 9 June" for a date in that week) are all fine.
- WRONG when it names a different fact, person, place, number or time, misses the point of the reference, or says it does not know while the reference gives an answer.
- Judge only against the reference; do not use your own knowledge of the subject.

Answer with JSON of this shape:
{"label": "CORRECT"}  or  {"label": "WRONG"}"""

LABELS = ("CORRECT", "WRONG")
_PLAIN = re.compile(r"\b(CORRECT|WRONG)\b")


class JudgeReply(Reply):
    label: Text = choice("", LABELS)


def build_messages(question: str, gold: str, answer: str) -> Messages:
    body = (f"Question: {question}\nReference answer: {gold}\nGenerated answer: {answer}")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{INSTRUCTIONS}\n\n{body}"},
    ]


def to_verdict(reply: JudgeReply) -> Checked[bool]:
    label = reply.label.strip().upper()
    if label in ("CORRECT", "WRONG"):
        return Checked(label == "CORRECT")
    return Checked(None, [f"label must be CORRECT or WRONG, got '{reply.label[:30]}'"])


def plain_verdict(text: str) -> JudgeReply | None:
    """A non-JSON reply that contains exactly one of the two labels."""
    found = set(_PLAIN.findall(text.upper()))
    return JudgeReply(label=found.pop()) if len(found) == 1 else None
