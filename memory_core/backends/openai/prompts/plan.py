"""Plan stage: turn a question into atomic evidence requirements over the index's vocabulary.

Builder (pure) → ``PlanReply`` → ``to_plan`` (pure). Each requirement must name an entity or
a property (otherwise it is dropped); roles and ``depends_on`` links are checked; reasoning
type and scope are mapped onto the project's enums, and aggregation/comparison questions
always get the "all matching" scope. A plan with no requirement left is unusable.
"""

# ruff: noqa: E501  (prompt text is kept one instruction per line)

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from memory_core.backends.openai.prompts.common import Messages, Reply, Text, Texts, choice, norm_label
from memory_core.contracts import Vocabulary
from memory_core.llm.parsing import Checked
from memory_core.models import Plan, ReasoningType, Requirement, Scope

MAX_ENTITIES = 150
MAX_PROPERTIES = 200

REASONING_ALIASES = {
    "point": ReasoningType.POINT, "direct": ReasoningType.POINT, "single": ReasoningType.POINT,
    "single-hop": ReasoningType.POINT, "lookup": ReasoningType.POINT,
    "temporal": ReasoningType.TEMPORAL, "time": ReasoningType.TEMPORAL,
    "aggregation": ReasoningType.AGGREGATION, "aggregate": ReasoningType.AGGREGATION,
    "count": ReasoningType.AGGREGATION, "list": ReasoningType.AGGREGATION,
    "comparison": ReasoningType.COMPARISON, "compare": ReasoningType.COMPARISON,
    "multi-hop": ReasoningType.MULTI_HOP, "multi_hop": ReasoningType.MULTI_HOP,
    "multihop": ReasoningType.MULTI_HOP,
    "open-domain": ReasoningType.OPEN_DOMAIN, "open_domain": ReasoningType.OPEN_DOMAIN,
    "inference": ReasoningType.OPEN_DOMAIN, "commonsense": ReasoningType.OPEN_DOMAIN,
}
ROLES = ("target", "constraint", "bridge")

SYSTEM = (
    "You plan searches in a long-term conversational memory. The memory is an index of records "
    "[entity][entity_type][property: value] that point back to the conversation. You break a "
    "question into the separate pieces of evidence that must be found to answer it. You do not "
    "answer the question. You answer with one JSON object and nothing else."
)

INSTRUCTIONS = """Plan the evidence needed for the question below.

- "answer_target": what kind of answer is wanted, in a few words (a date, a place, a name, a count, a list, yes/no, a reason ...).
- "reasoning_type": "point" (one fact), "temporal" (when something happened, or the order of things), "aggregation" (counting or listing all cases), "comparison" (comparing facts), "multi-hop" (a fact that is needed to find another fact) or "open-domain" (an inference beyond what is literally said).
- "scope": "all" when every matching fact must be gathered (counts, lists, "how often", "which ... all", comparisons, first/last questions), otherwise "point".
- "requirements": one per atomic piece of evidence. Each has:
  - "entity": who or what the evidence is about, as named in the question (a speaker's name for "I"/"you" only when the question makes it clear),
  - "entity_type": person, organization, place, object, event, activity, concept, animal or other,
  - "property": the predicate sought, in the style of the index vocabulary below when one fits,
  - "value": a value the question already states (e.g. a place or title it names), otherwise "" — never a guess at the answer,
  - "condition": any time, place or other restriction stated in the question, otherwise "",
  - "role": "target" for evidence that answers the question, "constraint" for evidence that narrows it, "bridge" for evidence whose answer is needed by another requirement,
  - "depends_on": for a requirement that needs the answer of an earlier one, the 0-based index of that earlier requirement, otherwise null.
- "time_condition": the time restriction of the question as written ("last summer", "in 2022"), otherwise "".
- "keywords": the distinctive words of the question that the conversation is likely to contain.

Answer with JSON of this shape:
{"answer_target": "...", "reasoning_type": "point|temporal|aggregation|comparison|multi-hop|open-domain", "scope": "point|all", "requirements": [{"entity": "...", "entity_type": "...", "property": "...", "value": "", "condition": "", "role": "target|constraint|bridge", "depends_on": null}], "time_condition": "", "keywords": ["..."]}"""


def _to_index(value: Any) -> int | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1  # present but not a number: reported by the converter


class RequirementItem(Reply):
    entity: Text = ""
    entity_type: Text = ""
    property: Text = ""
    value: Text = ""
    condition: Text = ""
    role: Text = choice("target", ROLES)
    depends_on: Annotated[int | None, BeforeValidator(_to_index)] = None


class PlanReply(Reply):
    answer_target: Text = ""
    reasoning_type: Text = choice("point", [r.value for r in ReasoningType])
    scope: Text = choice("point", ("point", "all"))
    requirements: list[RequirementItem] = Field(default_factory=list)
    time_condition: Text = ""
    keywords: Texts = Field(default_factory=list)


def build_messages(question: str, vocabulary: Vocabulary) -> Messages:
    entities = ", ".join(f"{name} ({kind})" for name, kind in vocabulary.entities[:MAX_ENTITIES])
    properties = ", ".join(vocabulary.properties[:MAX_PROPERTIES])
    asked = (f"{vocabulary.question_time:%A %d %B %Y}" if vocabulary.question_time else "not given")
    context = (f"Speakers of the conversation: {', '.join(vocabulary.speakers) or 'unknown'}\n"
               f"Entities in the index: {entities or 'none listed'}\n"
               f"Properties in the index: {properties or 'none listed'}\n"
               f"Date the question is asked: {asked}")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{INSTRUCTIONS}\n\n{context}\n\nQuestion: {question}"},
    ]


def to_plan(reply: PlanReply, question: str) -> Checked[Plan]:
    problems: list[str] = []
    kept: list[RequirementItem] = []
    renumber: dict[int, int] = {}
    for n, item in enumerate(reply.requirements):
        if not item.entity.strip() and not norm_label(item.property):
            problems.append(f"requirement {n} dropped: it names neither an entity nor a property")
            continue
        renumber[n] = len(kept)
        kept.append(item)
    requirements: list[Requirement] = []
    for new_index, item in enumerate(kept):
        role = item.role.strip().lower()
        if role not in ROLES:
            problems.append(f"requirement {new_index}: unknown role '{role[:20]}', using target")
            role = "target"
        depends = item.depends_on
        if depends is not None:
            mapped = renumber.get(depends)
            if mapped is None or mapped >= new_index:
                problems.append(f"requirement {new_index}: depends_on {depends} is not an earlier "
                                "requirement; link removed")
                depends = None
            else:
                depends = mapped
        requirements.append(Requirement(
            entity=item.entity.strip() or None,
            entity_type=item.entity_type.strip().lower() or None,
            property=norm_label(item.property) or None,
            value=item.value or None,
            condition=item.condition or None,
            role=role,
            depends_on=depends,
        ))
    if not requirements:
        problems.append("the plan has no usable requirement (each needs an entity or a property)")
        return Checked(None, problems)

    reasoning = REASONING_ALIASES.get(reply.reasoning_type.strip().lower())
    if reasoning is None:
        problems.append(f"unknown reasoning_type '{reply.reasoning_type[:20]}', using point")
        reasoning = ReasoningType.POINT
    scope_text = reply.scope.strip().lower()
    scope = Scope.ALL if scope_text in ("all", "all_matching", "all-matching") else Scope.POINT
    if scope_text not in ("all", "all_matching", "all-matching", "point"):
        problems.append(f"unknown scope '{scope_text[:20]}', using point")
    if reasoning in (ReasoningType.AGGREGATION, ReasoningType.COMPARISON) and scope is Scope.POINT:
        problems.append(f"{reasoning.value} questions need every matching fact: scope set to all")
        scope = Scope.ALL
    return Checked(Plan(
        question=question,
        answer_target=reply.answer_target,
        reasoning_type=reasoning,
        scope=scope,
        requirements=tuple(requirements),
        hops=_hops(requirements),
        time_condition=reply.time_condition or None,
        keywords=tuple(dict.fromkeys(k for k in reply.keywords if k)),
    ), problems)


def _hops(requirements: list[Requirement]) -> int:
    depth = [1] * len(requirements)
    for i, req in enumerate(requirements):
        if req.depends_on is not None:
            depth[i] = depth[req.depends_on] + 1
    return max(depth, default=1)
