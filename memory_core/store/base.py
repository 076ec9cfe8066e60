"""The DuckDB connection, migrations and transactions shared by the repository mixins.

One ``StoreBase`` owns one DuckDB connection. Every SQL statement is parameterised; no SQL
is ever built from user text. Calls are serialised with a re-entrant lock (one DuckDB
connection is not safe to share across threads), and ``with store.atomic():`` groups
statements into one transaction (nested ``atomic`` blocks join the outer one).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from memory_core.errors import StoreError
from memory_core.store.schema import MIGRATIONS, SCHEMA_VERSION

log = logging.getLogger(__name__)

DB_FILE = "mnemoscope.duckdb"


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def loads(raw: str | None) -> Any:
    return None if raw is None else json.loads(raw)


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class StoreBase:
    """Connection, schema migrations, locking and transactions."""

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False) -> None:
        self.path = str(path)
        self.read_only = read_only
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc).splitlines()[0]
            if "lock" in message.lower():
                raise StoreError(
                    f"{self.path}: the home is in use by another process "
                    "(DuckDB allows one writer); stop the app or use another --home"
                ) from None
            raise StoreError(f"{self.path}: cannot open the database: {message}") from None
        except duckdb.Error as exc:
            raise StoreError(f"{self.path}: cannot open the database: {exc}") from None
        self._lock = threading.RLock()
        self._depth = 0
        if not read_only:
            self._migrate()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        with self._lock:
            self._con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._con.execute("SELECT max(version) FROM schema_version").fetchall()[0]
            current = int(row[0]) if row and row[0] is not None else 0
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: schema version {current} is newer than this program "
                    f"understands ({SCHEMA_VERSION})"
                )
            for version in range(current, SCHEMA_VERSION):
                log.info("migrating %s to schema version %d", self.path, version + 1)
                with self.atomic():
                    for statement in _statements(MIGRATIONS[version]):
                        self._con.execute(statement)
                    self._con.execute("INSERT INTO schema_version VALUES (?)", [version + 1])

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0]) if row and row[0] is not None else 0

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction; nested blocks join the outermost one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._con.execute("BEGIN TRANSACTION")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._con.execute("ROLLBACK")
                raise
            else:
                self._depth = 0
                self._con.execute("COMMIT")

    @contextmanager
    def memory_capped(self, megabytes: int) -> Iterator[None]:
        """Cap DuckDB's memory for a bulk load: it caches every block it writes, up to 80 % of
        RAM (a 250 MB import peaked at 1.07 GB resident; 256 MB keeps it near 0.5 GB)."""
        previous = str(self.scalar("SELECT current_setting('memory_limit')"))
        self.execute(f"SET memory_limit = '{int(megabytes)}MB'")
        try:
            yield
        finally:
            if re.fullmatch(r"\d+(\.\d+)? ?[KMGT]?i?B", previous):  # DuckDB's rendering: '18.8 GiB'
                self.execute(f"SET memory_limit = '{previous}'")
            else:
                self.execute("RESET memory_limit")

    # ------------------------------------------------------------------ statements
    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock:
            # consume the result: DuckDB refuses other work while a result is unfinished
            self._con.execute(sql, list(params)).fetchall()

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._lock:
            self._con.executemany(sql, [list(r) for r in rows])

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None:
        """Bulk-insert rows (in the table's column order) through a registered DataFrame.

        ``executemany`` costs ~1 ms a row in DuckDB; this is ~100x faster. ``table`` must be
        one of the schema's constant names, never user text.
        """
        if not rows:
            return
        import pandas as pd

        frame = pd.DataFrame([list(r) for r in rows], dtype=object)
        with self._lock:
            self._con.register("_bulk_rows", frame)
            try:
                self._con.execute(f"INSERT INTO {table} SELECT * FROM _bulk_rows")  # noqa: S608
            finally:
                self._con.unregister("_bulk_rows")

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._con.execute(sql, list(params)).fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self._lock:
            rows = self._con.execute(sql, list(params)).fetchall()
            return rows[0] if rows else None

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            cur = self._con.execute(sql, list(params))
            names = [d[0] for d in cur.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(sql, params)
        return None if row is None else row[0]


def _statements(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
