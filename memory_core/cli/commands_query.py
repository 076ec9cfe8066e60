"""``ask --conv ID "question" [--strategy S] [--budget-tokens N] [--backend B] [--as-of DATE] [--json]``."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory_core.config import Settings

if TYPE_CHECKING:
    from memory_core.models import BufferTurn, Trace


def register(sub: Any) -> None:
    p = sub.add_parser("ask", help="ask a question about a conversation; prints the answer and its trace")
    p.add_argument("--conv", required=True, help="conversation id (see: list)")
    p.add_argument("question")
    p.add_argument(
        "--strategy", default=None,
        help="retrieval strategy (default ensimem; an unknown name is refused with the list)"
    )
    p.add_argument("--budget-tokens", type=int, default=None, help="cap the evidence buffer at N tokens")
    p.add_argument(
        "--backend", default=None, choices=("offline", "openai"), help="who answers (default offline)"
    )
    p.add_argument("--as-of", type=_as_of, default=None, metavar="DATE",
                   help="ask as of this date (YYYY-MM-DD[ HH:MM]): 'last week' counts back from it "
                        "(default: the last session's date)")
    p.add_argument("--json", action="store_true", help="print the whole trace as JSON")
    p.set_defaults(func=cmd_ask)


def _as_of(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date YYYY-MM-DD (optionally with HH:MM), got {text!r}") from None


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.cli.commands_eval import check_strategy
    from memory_core.services import Services

    check_strategy(args.strategy)
    services = Services.open(replace(settings, backend=args.backend or settings.backend))
    try:
        trace = services.queries.ask(args.conv, args.question, strategy=args.strategy,
                                     budget_tokens=args.budget_tokens, now=args.as_of)
    finally:
        services.close()
    if args.json:
        print(trace.model_dump_json(indent=2))
    else:
        print(format_trace(trace))
    return 0


def _marked(bt: BufferTurn) -> str:
    """The turn text with highlighted spans in [[double brackets]]."""
    text, out, last = bt.text, [], 0
    for h in sorted(bt.highlights, key=lambda h: h.start):
        if h.start < last:
            continue
        out.append(text[last : h.start])
        out.append(f"[[{text[h.start : h.end]}]]")
        last = h.end
    out.append(text[last:])
    body = "".join(out)
    if bt.image_caption:
        body += f" [image: {bt.image_caption}]"
    return body


def format_trace(trace: Trace) -> str:
    p = trace.plan
    lines = [f"answer: {trace.answer.text}", ""]
    lines.append(
        f"trace {trace.id}  conv {trace.conv_id}  strategy {trace.strategy}  backend {trace.backend}"
    )
    lines.append(
        f"plan: target={p.answer_target} reasoning={p.reasoning_type.value} scope={p.scope.value} "
        f"hops={p.hops} time={p.time_condition or '-'} keywords={', '.join(p.keywords) or '-'}"
    )
    for i, r in enumerate(p.requirements):
        dep = f" depends on r{r.depends_on}" if r.depends_on is not None else ""
        lines.append(
            f"  r{i} [{r.role}] entity={r.entity or '-'} type={r.entity_type or '-'} "
            f"property={r.property or '-'} value={r.value or '-'} condition={r.condition or '-'}{dep}"
        )
    lines.append("matches:")
    for shown, m in enumerate(trace.matches):
        if shown >= 12:
            lines.append(f"  ... {len(trace.matches) - shown} more (use --json)")
            break
        target = m.record_id or m.turn_id or "-"
        req = f"r{m.requirement}" if m.requirement >= 0 else "q"
        comps = " ".join(f"{k}={v:.3g}" for k, v in m.components.items())
        lines.append(f"  {req} {m.kind.value:10} {m.score:.3f} {target} ({m.episode_id or '-'}) {comps}")
    lines.append("episodes:")
    for e in trace.episodes:
        covers = ",".join(f"r{i}" for i in e.covers) or "-"
        lines.append(f"  {e.episode_id}  score {e.score:.3f}  covers {covers}  {e.reason}")
    if trace.details:
        lines.append("retrieval: " + ", ".join(f"{k}={v}" for k, v in trace.details.items()))
    lines.append(
        f"buffer: {len(trace.buffer)} turns, {trace.buffer_tokens} tokens"
        + (f" (cap {trace.budget_tokens})" if trace.budget_tokens else "")
    )
    session = None
    for bt in trace.buffer:
        if bt.session != session:
            session = bt.session
            when = bt.session_time.isoformat(sep=" ", timespec="minutes") if bt.session_time else "?"
            lines.append(f"  -- session {bt.session} ({when})")
        lines.append(f"  [{bt.turn_id}] {bt.speaker}: {_marked(bt)}")
    lines.append("timings: " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in trace.timings.items()))
    return "\n".join(lines)
