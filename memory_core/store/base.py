"""The connection, migrations and transactions shared by the repository mixins.

One ``StoreBase`` owns one connection to one engine (``engines.py``): an embedded DuckDB file
(the default) or a PostgreSQL database (``postgresql://…``). Every SQL statement is
parameterised; no SQL is ever built from user text. Calls are serialised with a re-entrant
lock (one connection is not safe to share across threads), and ``with store.atomic():``
groups statements into one transaction (nested ``atomic`` blocks join the outer one).
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
from typing import Any, Self

from memory_core.errors import StoreError
from memory_core.store.engines import DIALECT_SQL, Engine, open_engine
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
        self._engine: Engine = open_engine(str(path), read_only=read_only)
        self.path = self._engine.label  # a file path, or the URL without its password
        self.engine = self._engine.name
        self.read_only = read_only
        self._lock = threading.RLock()
        self._depth = 0
        if not read_only:
            self._migrate()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        with self._lock:
            self._engine.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        with self._lock, self._engine.migration_lock():
            self._engine.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)", [])
            _, rows = self._engine.fetch("SELECT max(version) FROM schema_version", [])
            current = int(rows[0][0]) if rows and rows[0][0] is not None else 0
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: schema version {current} is newer than this program "
                    f"understands ({SCHEMA_VERSION})"
                )
            for version in range(current, SCHEMA_VERSION):
                log.info("migrating %s to schema version %d", self.path, version + 1)
                with self.atomic():
                    for statement in _statements(MIGRATIONS[version]):
                        self._engine.execute(self._engine.ddl(statement), [])
                    self._engine.execute("INSERT INTO schema_version VALUES (?)", [version + 1])

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0]) if row and row[0] is not None else 0

    # ------------------------------------------------------------------ transactions
    def in_transaction(self) -> bool:
        """Whether a transaction is open on this store (work started now joins it)."""
        return self._depth > 0

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
            self._engine.execute("BEGIN TRANSACTION", [])
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._engine.execute("ROLLBACK", [])
                raise
            else:
                self._depth = 0
                self._engine.execute("COMMIT", [])

    @contextmanager
    def memory_capped(self, megabytes: int) -> Iterator[None]:
        """Cap DuckDB's memory for a bulk load: it caches every block it writes, up to 80 % of
        RAM (a 250 MB import peaked at 1.07 GB resident; 256 MB keeps it near 0.5 GB).
        PostgreSQL's memory is the server's business: a no-op there."""
        if self.engine != "duckdb":
            yield
            return
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
            self._engine.execute(sql, params)

    def execute_count(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run an UPDATE/DELETE/INSERT and return how many rows it touched."""
        with self._lock:
            return self._engine.execute(sql, params)

    def lock_conversation(self, conv_id: str) -> None:
        """Inside ``atomic()``: hold the conversation until commit, across processes (PostgreSQL)."""
        sql = self.dialect("lock_conversation")
        if sql:
            with self._lock:
                if not self._depth:
                    raise StoreError("lock_conversation: only inside a transaction")
                self._engine.fetch(sql, [conv_id])

    def dialect(self, name: str) -> str:
        """The statement ``name`` from ``engines.DIALECT_SQL`` for this engine."""
        return DIALECT_SQL[name][self.engine]

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._lock:
            self._engine.executemany(sql, rows)

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None:
        """Bulk-insert rows (in the table's column order); ``table`` must be one of the
        schema's constant names, never user text."""
        if not rows:
            return
        with self._lock:
            self._engine.insert_rows(table, rows)

    def reclaim(self, tables: Sequence[str]) -> None:
        """Make deleted rows' bytes leave the database files (DuckDB CHECKPOINT,
        PostgreSQL VACUUM FULL). Outside any transaction."""
        with self._lock:
            if self._depth:
                raise StoreError("reclaim: cannot run inside a transaction")
            self._engine.reclaim(tables)

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._engine.fetch(sql, params)[1]

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self.all(sql, params)
        return rows[0] if rows else None

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            names, rows = self._engine.fetch(sql, params)
            return [dict(zip(names, row, strict=True)) for row in rows]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(sql, params)
        return None if row is None else row[0]


def _statements(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
