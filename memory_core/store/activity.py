"""Traces, edits (the append-only audit log), builds and LLM-call cache/accounting."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memory_core.errors import StoreError
from memory_core.models import Edit, Trace
from memory_core.store.base import StoreBase, dumps, loads, now

BUILD_STATES = ("queued", "building", "done", "failed")
EDIT_COLUMNS = "id, conv_id, target_kind, target_id, action, who, edited_at, before, after, why, reverts, via"


def edit_from_row(r: Sequence[Any]) -> Edit:
    """An ``Edit`` from a row of ``EDIT_COLUMNS``."""
    return Edit(id=r[0], conv_id=r[1], target_kind=r[2], target_id=r[3], action=r[4], who=r[5],
                at=r[6], before=loads(r[7]), after=loads(r[8]), why=r[9], reverts=r[10], via=r[11] or "")


# how an evaluation run's trace says so in its JSON payload (pydantic writes it compactly; a
# question's own quotes are escaped there, so its text cannot spell this)
EVALUATION = "evaluation"
EVALUATION_MARK = f'"asked_by":"{EVALUATION}"'


class ActivityStore(StoreBase):
    # ------------------------------------------------------------------ traces
    def save_trace(self, trace: Trace) -> None:
        self.execute(
            "INSERT INTO traces (id, conv_id, question, strategy, backend, created_at, payload, client, "
            "kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [trace.id, trace.conv_id, trace.question, trace.strategy, trace.backend,
             trace.created_at, trace.model_dump_json(), trace.client, trace.kind],
        )

    def trace(self, trace_id: str) -> Trace:
        row = self.one("SELECT payload FROM traces WHERE id = ?", [trace_id])
        if row is None:
            raise StoreError(f"unknown trace '{trace_id}'")
        return Trace.model_validate_json(row[0])

    def traces(self, conv_id: str, limit: int = 200, *, agents: bool | None = None) -> list[dict[str, Any]]:
        """Newest first: id, question, strategy, backend, created_at, client, kind and
        ``by_evaluation`` (an evaluation run asked it: its payload's ``details.asked_by`` is
        "evaluation"). ``agents``: False — people's questions only (client ''), True — agent
        calls only, None — both."""
        where = {False: " AND client = ''", True: " AND client <> ''", None: ""}[agents]
        return self.dicts(
            "SELECT id, question, strategy, backend, created_at, client, kind, "  # noqa: S608
            "strpos(payload, ?) > 0 AS by_evaluation FROM traces "
            f"WHERE conv_id = ?{where} ORDER BY created_at DESC LIMIT ?",
            [EVALUATION_MARK, conv_id, limit],
        )

    # ------------------------------------------------------------------ edits
    def add_edit(self, edit: Edit) -> None:
        self.execute(
            f"INSERT INTO edits ({EDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",  # noqa: S608
            [edit.id, edit.conv_id, edit.target_kind, edit.target_id, edit.action, edit.who,
             edit.at, None if edit.before is None else dumps(edit.before),
             None if edit.after is None else dumps(edit.after), edit.why, edit.reverts, edit.via or None],
        )

    def edits(self, conv_id: str | None = None, target_id: str | None = None) -> list[Edit]:
        sql = f"SELECT {EDIT_COLUMNS} FROM edits WHERE 1 = 1"  # noqa: S608 (a constant)
        params: list[Any] = []
        if conv_id is not None:
            sql += " AND conv_id = ?"
            params.append(conv_id)
        if target_id is not None:
            sql += " AND target_id = ?"
            params.append(target_id)
        return [edit_from_row(r) for r in self.all(sql + " ORDER BY edited_at, id", params)]

    # ------------------------------------------------------------------ builds
    def start_build(self, build_id: str, conv_id: str, backend: str) -> None:
        self.execute("INSERT INTO builds VALUES (?, ?, ?, ?, NULL, '{}', '{}')",
                     [build_id, conv_id, backend, now()])

    def finish_build(self, build_id: str, stats: dict[str, Any], cost: dict[str, Any]) -> None:
        self.execute("UPDATE builds SET finished_at = ?, stats = ?, cost = ? WHERE id = ?",
                     [now(), dumps(stats), dumps(cost), build_id])

    def builds(self, conv_id: str) -> list[dict[str, Any]]:
        rows = self.dicts("SELECT * FROM builds WHERE conv_id = ? ORDER BY started_at DESC", [conv_id])
        for row in rows:
            row["stats"] = loads(row["stats"])
            row["cost"] = loads(row["cost"])
        return rows

    # ------------------------------------------------------------------ build status (cluster runs)
    def set_build_status(self, conv_id: str, run_id: str, state: str, *, stage: str = "",
                         error: str = "", worker: str = "") -> None:
        """The conversation's state in build run ``run_id`` (one row per conversation)."""
        if state not in BUILD_STATES:
            raise StoreError(f"build status of '{conv_id}': unknown state '{state}' "
                             f"({', '.join(BUILD_STATES)})")
        self.execute(
            "INSERT INTO build_status VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conv_id) DO UPDATE SET "
            "run_id = excluded.run_id, state = excluded.state, stage = excluded.stage, "
            "error = excluded.error, worker = excluded.worker, updated_at = excluded.updated_at",
            [conv_id, run_id, state, stage, error, worker, now()])

    def build_status(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """The rows of run ``run_id`` (default: the run written last), by conversation id."""
        if run_id is None:
            row = self.one("SELECT run_id FROM build_status ORDER BY updated_at DESC, run_id LIMIT 1")
            if row is None:
                return []
            run_id = str(row[0])
        return self.dicts("SELECT conv_id, run_id, state, stage, error, worker, updated_at "
                          "FROM build_status WHERE run_id = ? ORDER BY conv_id", [run_id])

    # ------------------------------------------------------------------ LLM cache / accounting
    def cached_response(self, key: str) -> tuple[str, int, int] | None:
        row = self.one("SELECT response, tokens_in, tokens_out FROM llm_cache WHERE key = ?", [key])
        return None if row is None else (row[0], int(row[1]), int(row[2]))

    def cache_response(self, key: str, endpoint: str, model: str, response: str,
                       tokens_in: int, tokens_out: int, conv_id: str | None = None) -> None:
        """Keep (or replace) one cached answer; ``conv_id`` names the conversation whose text
        the request carried (forgetting that conversation removes the row)."""
        self.execute("INSERT INTO llm_cache (key, endpoint, model, response, tokens_in, tokens_out, "
                     "created_at, conv_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                     "endpoint = excluded.endpoint, model = excluded.model, response = excluded.response, "
                     "tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out, "
                     "created_at = excluded.created_at, conv_id = excluded.conv_id",
                     [key, endpoint, model, response, tokens_in, tokens_out, now(), conv_id])

    def log_llm_call(self, *, conv_id: str | None, scope: str, stage: str, model: str,
                     tokens_in: int, tokens_out: int, latency_s: float, cost_usd: float,
                     cached: bool, at: datetime | None = None) -> None:
        self.execute("INSERT INTO llm_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [conv_id, scope, stage, model, tokens_in, tokens_out, latency_s, cost_usd,
                      cached, at or now()])

    def llm_usage(self, scope_prefix: str) -> list[dict[str, Any]]:
        """Per-stage totals for scopes starting with ``scope_prefix`` (e.g. 'build:')."""
        return self.dicts(
            "SELECT stage, count(*) AS calls, sum(CASE WHEN cached THEN 1 ELSE 0 END) AS cached, "
            "sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, sum(latency_s) AS latency_s, "
            "sum(cost_usd) AS cost_usd FROM llm_calls WHERE starts_with(scope, ?) "
            "GROUP BY stage ORDER BY stage",
            [scope_prefix],
        )
