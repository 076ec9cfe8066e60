"""Classify the misses of an evaluation run (questions whose gold evidence is not all in the buffer).

    python benchmarks/query_failures.py --home HOME --run run.jsonl [--examples 1]

For each missed question it asks ``services.evaluation.triage`` (gold turns, whether records cite them,
whether they were retrieved, their fused rank, what outranked them) and sorts the miss into one
kind, by the first that applies to its missing gold turns:

    answer only in an image caption   the question's words match the caption, not the text
    next to a retrieved turn          a missing gold turn sits right beside a retrieved one
    said by the other person          the question names one person, the other one said it
    aggregation / no shared words     other gold turns found; a further one shares no word
    inference / paraphrase            the gold turn shares no word with the question
    outranked                         shares words but ranked below what the buffer held
Prints the counts and one example per kind.

With ``--answers`` it also re-asks every question of the run (offline, nothing saved) and
prints answer token-F1 per category with the answer's support level: how many answers are
wrong (F1 < 0.3) and how many of those are flagged ``weak``/``unknown``, and how many right
ones are flagged anyway.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.query.text import terms
from memory_core.services import Services


def kind_of(info: dict[str, Any], question: str, retrieved: set[str], speakers: set[str]) -> str:
    """The kind of the first missing gold turn that fits (most specific first)."""
    missing = [e for e in info["evidence"] if not e["retrieved"]]
    q = set(terms(question))
    named = {s for s in speakers if s.lower() in question.lower()}
    for e in missing:
        text = e["text"] or ""
        speaker, _, body = text.partition(": ")
        if "[image:" in body:
            said, _, caption = body.partition("[image:")
            if q & set(terms(caption)) and not q & set(terms(said)):
                return "answer only in an image caption"
        session, index = e["turn_id"][1:].split(":")
        beside = {f"D{session}:{int(index) - 1}", f"D{session}:{int(index) + 1}"}
        if beside & retrieved:
            return "next to a retrieved turn (needs context)"
        if len(named) == 1 and speaker not in named:
            return "said by the other person"
        if not q & set(terms(body)):
            if len(info["evidence"]) > 1 and len(missing) < len(info["evidence"]):
                return "aggregation: a further gold turn shares no word with the question"
            return "inference / paraphrase: gold turn shares no word with the question"
    return "outranked (shares words, ranked too low)"


WRONG_F1 = 0.3  # an answer below this token-F1 counts as wrong


def answer_table(services: Services, rows: list[dict[str, Any]]) -> str:
    """F1 by category and the support level of right and wrong answers (questions re-asked)."""
    from memory_core.eval.metrics import token_f1

    per: dict[str, list[tuple[float, str]]] = {}
    for row in rows:
        trace, _ = services.queries.ask_detailed(
            row["conv_id"],
            row["question"],
            strategy_name=row.get("strategy"),
            budget_tokens=row.get("budget_tokens"),
            backend="offline",
            save=False,
        )
        level = str(trace.answer.support or ("supported" if trace.answer.supported else "unknown"))
        item = (token_f1(trace.answer.text, row["gold"]), level)
        per.setdefault(str(row["category"]), []).append(item)
        per.setdefault("overall", []).append(item)
    lines = [f"{'category':<9} {'n':>4} {'F1':>6} {'wrong':>6} {'flagged':>8} {'right flagged':>14}"]
    for key in sorted(per, key=lambda k: (k == "overall", k)):
        items = per[key]
        wrong = [lv for f, lv in items if f < WRONG_F1]
        right = [lv for f, lv in items if f >= WRONG_F1]
        flagged = sum(lv in ("weak", "unknown") for lv in wrong)
        right_flagged = sum(lv in ("weak", "unknown") for lv in right)
        f1 = sum(f for f, _ in items) / len(items)
        share = f"{flagged}/{len(wrong)}"
        lines.append(
            f"{key:<9} {len(items):>4} {f1:>6.3f} {len(wrong):>6} {share:>8} {right_flagged:>7}/{len(right)}"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--examples", type=int, default=1)
    ap.add_argument("--answers", action="store_true", help="also re-ask and tabulate answer F1/support")
    a = ap.parse_args()
    services = Services.open(Settings(home=Path(a.home)))
    rows = [json.loads(line) for line in Path(a.run).read_text().splitlines() if line.strip()]
    kinds: Counter[str] = Counter()
    multi = 0
    examples: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        info = services.evaluation.triage(row["conv_id"], int(row["qid"]), row).to_json()
        if not info["evidence"] or info["full_recall"]:
            continue
        speakers = set(services.queries.conversation_index(row["conv_id"]).speakers)
        kind = kind_of(info, row["question"], set(row["dia_ids"]), speakers)
        if len(info["evidence"]) > 1:
            multi += 1
        kinds[kind] += 1
        examples.setdefault(kind, []).append({**info, "tokens": row["context_tokens"]})
    total = sum(kinds.values())
    print(f"{total} missed questions of {len(rows)} ({multi} of them have several gold turns)")
    for kind, n in kinds.most_common():
        print(f"\n{kind}: {n}")
        for ex in examples[kind][: a.examples]:
            print(
                f"  {ex['conv_id']} q{ex['qid']} (category {ex['category']}, {ex['tokens']} tokens): "
                f"{ex['question']}  gold: {ex['gold']}"
            )
            for e in ex["evidence"]:
                flag = "retrieved" if e["retrieved"] else f"MISSED (rank {e['rank']})"
                print(
                    f"    {e['turn_id']} {flag}, cited by {len(e['cited_by_records'])} records: "
                    f"{(e['text'] or '')[:140]}"
                )
            for o in ex["outranked_by"][:3]:
                print(f"    outranked by {o['turn_id']} (rank {o['rank']}, {o['score']}): {o['text'][:100]}")
    if a.answers:
        print("\nanswers (re-asked offline):")
        print(answer_table(services, rows))
    services.close()


if __name__ == "__main__":
    main()
