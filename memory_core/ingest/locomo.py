"""LoCoMo: the official ``locomo10.json`` layout (a list of samples) or one sample object.

A sample is ``{"sample_id", "conversation": {"speaker_a", "speaker_b", "session_N_date_time",
"session_N": [{"speaker", "dia_id", "text", "img_url"?, "blip_caption"?}]}, "qa": [...],
"observation"?, "session_summary"?, "event_summary"?}``. The flat per-conversation layout
(the ``conversation`` object's keys and ``qa`` at the top) is read too; its id comes from the
file name (``26.json`` -> ``conv-26``).

Sessions keep the source's number N; sessions with no turns are skipped. ``img_url`` ->
``image_url`` (the first url of a list), ``blip_caption`` -> ``image_caption``. QA items keep
their index in the full list as ``qid``; evidence ids are normalised (see
``memory_core.ids.normalise_evidence``) and ids naming no turn are skipped with a warning and kept in
``meta["unmatched_evidence"]``.
"""

from __future__ import annotations

from typing import Any

from memory_core.ingest.builder import ConversationBuilder, parse_qa, warn_unmatched
from memory_core.ingest.common import (
    Context,
    first_item,
    get_dict,
    get_id,
    get_list,
    key_path,
    named_speakers,
    numbered,
    opt_str,
    session_keys,
    top_level_items,
    turn_fields,
)
from memory_core.models import Conversation

FORMAT = "locomo"
_META_KEYS = ("observation", "session_summary", "event_summary")


def looks_like(data: Any) -> bool:
    first = first_item(data)
    if not isinstance(first, dict):
        return False
    if isinstance(first.get("conversation"), dict) or "sample_id" in first:
        return True
    return "speaker_a" in first or bool(session_keys(first))


def parse(data: Any, ctx: Context) -> list[Conversation]:
    samples = top_level_items(ctx, data, noun="LoCoMo samples",
                              expected="a LoCoMo sample object or a list of samples")
    return [_sample(ctx, item, where, i, len(samples)) for i, (where, item) in enumerate(samples)]


def _sample(ctx: Context, value: Any, where: str, i: int, count: int) -> Conversation:
    sample = get_dict(ctx, value, where, "a LoCoMo sample object")
    if "conversation" in sample:
        body_where = key_path(where, "conversation")
        body = get_dict(ctx, sample["conversation"], body_where)
    elif "speaker_a" in sample or session_keys(sample):
        body_where, body = where, sample  # flat per-conversation layout
    else:
        raise ctx.error(where, "missing 'conversation' (a LoCoMo sample has sample_id, conversation, qa)")
    if sample.get("sample_id") is not None:
        conv_id = get_id(ctx, sample["sample_id"], key_path(where, "sample_id"), "sample_id")
    else:
        stem = ctx.stem
        conv_id = f"conv-{stem}" if stem.isdigit() else stem
        conv_id = numbered(conv_id, i, count)
    builder = ConversationBuilder(ctx, conv_id, FORMAT, where)
    for number, key in session_keys(body):
        if number < 1:
            raise ctx.error(key_path(body_where, key), "session numbers start at 1")
        date_key = f"{key}_date_time"
        date_where = key_path(body_where, date_key)
        date = opt_str(ctx, body.get(date_key), date_where)
        builder.session(number, date, date_where)
        turns = get_list(ctx, body[key], key_path(body_where, key), "a list of turns")
        for j, raw in enumerate(turns):
            _turn(ctx, builder, number, raw, f"{key_path(body_where, key)}[{j}]")
    speakers = named_speakers(ctx, body, ("speaker_a", "speaker_b"), body_where)
    qa_where = key_path(where, "qa")
    raw_qa = sample.get("qa", [])
    qa, unmatched = parse_qa(ctx, get_list(ctx, raw_qa, qa_where), qa_where, builder.turn_ids)
    meta: dict[str, Any] = {k: sample[k] for k in _META_KEYS if sample.get(k) is not None}
    if unmatched:
        meta["unmatched_evidence"] = unmatched
        warn_unmatched(ctx, qa_where, conv_id, unmatched)
    return builder.build(speakers=speakers, qa=qa, meta=meta)


def _turn(ctx: Context, builder: ConversationBuilder, session: int, value: Any, where: str) -> None:
    turn = get_dict(ctx, value, where, "a turn object")
    speaker, text, caption = turn_fields(ctx, turn, where)
    url_where = key_path(where, "img_url")
    raw_url = turn.get("img_url")
    if isinstance(raw_url, list):
        raw_url = raw_url[0] if raw_url else None
        url_where += "[0]"
    url = opt_str(ctx, raw_url, url_where)
    turn_id = None
    if turn.get("dia_id") is not None:
        turn_id = get_id(ctx, turn["dia_id"], key_path(where, "dia_id"), "dia_id")
    builder.add_turn(session, speaker, text, where=where, caption=caption, url=url, turn_id=turn_id)
