"""The typed rows the import and build services return (memory_core.summaries), read from store
rows as the store gives them."""

from __future__ import annotations

from datetime import datetime

from memory_core.summaries import (
    BuildCost,
    BuildRun,
    BuildState,
    ConversationSummary,
    ImportPreview,
    PreviewConversation,
)

WHEN = datetime(2031, 4, 2, 9, 30)


def test_a_conversation_summary_decodes_its_speakers_and_counts() -> None:
    row = {"id": "trip", "source_format": "jsonl", "source_name": "trip.jsonl",
           "speakers": '["Ines", "Tomas"]', "imported_at": WHEN, "sessions": 3, "turns": 41,
           "questions": 0, "episodes": 7, "records": 19, "entities": 6, "events": 2, "built_sessions": 2}
    s = ConversationSummary.of(row)
    assert (s.id, s.conv_id, s.speakers, s.source_format) == ("trip", "trip", ("Ines", "Tomas"), "jsonl")
    assert [s.count(c) for c in ("sessions", "turns", "records", "built_sessions")] == [3, 41, 19, 2]
    assert ConversationSummary.of({"id": "bare"}) == ConversationSummary(id="bare")


def test_a_build_run_reads_its_stats_and_what_its_calls_cost() -> None:
    row = {"id": "b1", "conv_id": "trip", "backend": "openai", "started_at": WHEN, "finished_at": None,
           "stats": {"seconds": 12.5, "episodes": 7},
           "cost": {"calls": 9, "cached": 2, "tokens_in": 1200, "tokens_out": 300, "latency_s": 4.0,
                    "cost_usd": 0.0125, "unpriced_models": ["house-model"]}}
    run = BuildRun.of(row)
    assert (run.seconds, run.finished_at, run.stats["episodes"]) == (12.5, None, 7)
    assert run.cost == BuildCost(calls=9, cached=2, tokens_in=1200, tokens_out=300, latency_s=4.0,
                                 cost_usd=0.0125, unpriced_models=("house-model",))
    failed = BuildRun.of({"id": "b2", "conv_id": "trip", "backend": "offline", "stats": {"error": "boom"},
                          "cost": {}})
    assert (failed.seconds, failed.cost.calls, "error" in failed.stats) == (0.0, 0, True)


def test_a_build_state_and_a_preview_read_again_against_the_home() -> None:
    state = BuildState.of({"conv_id": "trip", "run_id": "r1", "state": "failed", "stage": "",
                           "error": "conversation 'trip': boom", "worker": "client", "updated_at": WHEN})
    assert (state.state, state.error, state.updated_at) == ("failed", "conversation 'trip': boom", WHEN)
    preview = ImportPreview("jsonl", conversations=(
        PreviewConversation("trip", exists=False, speakers=("Ines",), sessions=1, turns=2, questions=0),
        PreviewConversation("walk", exists=True, speakers=("Tomas",), sessions=1, turns=3, questions=0)))
    assert [c.exists for c in preview.with_known(["trip"]).conversations] == [True, False]
