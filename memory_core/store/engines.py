"""The two relational engines under ``StoreBase``: embedded DuckDB (the default, one file in
the home) and PostgreSQL through psycopg 3 (``postgresql://…``, many processes on one home).

The repository mixins write one SQL text with ``?`` placeholders; an engine connects, runs
it, fetches, bulk-inserts and reclaims space. Where the dialects differ, the difference
sits here, in one table a reader can scan:

    concern                 DuckDB                           PostgreSQL
    placeholders            ?                                %s (translated outside literals)
    DOUBLE columns          DOUBLE                           DOUBLE PRECISION (DDL only)
    bulk insert             a registered pandas DataFrame    COPY … FROM STDIN
    UPDATE row count        the statement's count row        cursor.rowcount
    JSON list overlap       list_intersect(from_json(…))     jsonb_exists_any(…::jsonb, …)
    JSON list membership    list_contains(from_json(…), x)   jsonb_exists(…::jsonb, x)
    reclaim deleted text    rewrite the file (COPY FROM      VACUUM FULL of the touched tables
                            DATABASE), swap, reopen
    migrations by two       one writer process (file lock)   pg_advisory_lock around them
    processes
    replacing derived rows  the store's thread lock          + pg_advisory_xact_lock per conversation
    memory cap on a bulk    SET memory_limit (base.py        none: the server's settings
    import                  ``memory_capped``)

Both take lists as parameters (``col = ANY(?)``), both know ``ON CONFLICT … DO UPDATE``,
``starts_with``, ``strpos``, ``concat_ws`` and ``NULLS LAST``, so everything else is shared.

Opening errors are one line naming the database (a URL's password is never shown):
``database down: postgresql://app@db:5432/mnemo: connection refused``.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from memory_core.errors import ConflictError, StoreError

log = logging.getLogger(__name__)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

# Dialect-specific statements, by name: the only SQL that is not shared.
DIALECT_SQL: dict[str, dict[str, str]] = {
    "touch_edges": {
        "duckdb": "UPDATE edges SET last_accessed = ? WHERE conv_id = ? AND "
                  "len(list_intersect(CAST(from_json(record_ids, '[\"VARCHAR\"]') AS VARCHAR[]), ?)) > 0",
        "postgres": "UPDATE edges SET last_accessed = ? WHERE conv_id = ? AND "
                    "jsonb_exists_any(record_ids::jsonb, ?)",
    },
    # is turn t's id in record r2's JSON list of evidence turn ids (records search)
    "evidence_has_turn": {
        "duckdb": "list_contains(from_json(r2.evidence_turn_ids, '[\"VARCHAR\"]'), t.id)",
        "postgres": "jsonb_exists(r2.evidence_turn_ids::jsonb, t.id)",
    },
    # serialise transactions that replace a conversation's derived rows (delete + insert):
    # without it two processes re-inserting the same entity id collide on its primary key
    "lock_conversation": {
        "duckdb": "",  # one writing process; the store's lock already serialises its threads
        "postgres": "SELECT pg_advisory_xact_lock(7346612, hashtext(?))",
    },
}

_MIGRATION_LOCK = 7_346_611  # any constant: the advisory lock id migrations hold on PostgreSQL


def is_database_url(target: str) -> bool:
    return target.startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc}" if user else netloc))


class Engine(Protocol):
    """What ``StoreBase`` needs from a database; callers serialise calls with one lock."""

    name: str  # "duckdb" | "postgres"
    label: str  # the path or the redacted URL, for messages

    def fetch(self, sql: str, params: Sequence[Any]) -> tuple[list[str], list[tuple[Any, ...]]]: ...

    def execute(self, sql: str, params: Sequence[Any]) -> int: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def ddl(self, statement: str) -> str: ...

    def migration_lock(self) -> Any: ...

    def reclaim(self, tables: Sequence[str]) -> None: ...

    def close(self) -> None: ...


def open_engine(target: str, *, read_only: bool = False) -> Engine:
    """``postgresql://…`` opens PostgreSQL; anything else is a DuckDB file (or ``:memory:``)."""
    if is_database_url(target):
        return PostgresEngine(target, read_only=read_only)
    return DuckDBEngine(target, read_only=read_only)


# ---------------------------------------------------------------------------- DuckDB
class DuckDBEngine:
    name = "duckdb"

    def __init__(self, path: str, *, read_only: bool = False) -> None:
        self.label = path
        self.read_only = read_only
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._con = self._connect()

    def _connect(self) -> Any:
        import duckdb

        path = self.label
        try:
            return duckdb.connect(path, read_only=self.read_only)
        except duckdb.IOException as exc:
            message = str(exc).splitlines()[0]
            if "lock" in message.lower():
                raise StoreError(
                    f"{path}: the home is in use by another process "
                    "(DuckDB allows one writer); stop the app or use another --home"
                ) from None
            raise StoreError(f"{path}: cannot open the database: {message}") from None
        except duckdb.Error as exc:
            raise StoreError(f"{path}: cannot open the database: {exc}") from None

    def fetch(self, sql: str, params: Sequence[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
        cur = self._con.execute(sql, list(params))
        names = [d[0] for d in cur.description or ()]
        return names, cur.fetchall()

    def execute(self, sql: str, params: Sequence[Any]) -> int:
        # consume the result: DuckDB refuses other work while a result is unfinished
        rows = self._con.execute(sql, list(params)).fetchall()
        if rows and len(rows[0]) == 1 and isinstance(rows[0][0], int) and _is_dml(sql):
            return int(rows[0][0])
        return 0

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._con.executemany(sql, [list(r) for r in rows])

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None:
        """Through a registered DataFrame: ``executemany`` costs ~1 ms a row in DuckDB."""
        import pandas as pd

        frame = pd.DataFrame([list(r) for r in rows], dtype=object)
        self._con.register("_bulk_rows", frame)
        try:
            self._con.execute(f"INSERT INTO {table} SELECT * FROM _bulk_rows")  # noqa: S608
        finally:
            self._con.unregister("_bulk_rows")

    def ddl(self, statement: str) -> str:
        return statement

    @contextmanager
    def migration_lock(self) -> Iterator[None]:
        yield  # the file lock already admits one writing process

    def reclaim(self, tables: Sequence[str]) -> None:
        """DuckDB leaves deleted strings in free blocks (CHECKPOINT and VACUUM do not clear
        them), so the whole file is copied into a fresh one, swapped in and reopened."""
        if self.label == ":memory:" or self.read_only:
            return
        path = Path(self.label)
        fresh = path.with_name(path.name + ".compact")
        for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
            leftover.unlink(missing_ok=True)
        self._con.execute("CHECKPOINT").fetchall()
        catalog = str(self._con.execute("SELECT current_database()").fetchall()[0][0])
        literal = str(fresh).replace("'", "''")
        self._con.execute(f"ATTACH '{literal}' AS mnemoscope_compact").fetchall()
        try:
            copy = 'COPY FROM DATABASE "' + catalog.replace('"', '""') + '" TO mnemoscope_compact'
            self._con.execute(copy).fetchall()  # sql: constants (our own file and catalog names)
        finally:
            self._con.execute("DETACH mnemoscope_compact").fetchall()
        self._con.close()
        os.replace(fresh, path)
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
        self._con = self._connect()
        log.info("rewrote %s to drop deleted rows' bytes", path)

    def close(self) -> None:
        self._con.close()


# ---------------------------------------------------------------------------- PostgreSQL
class PostgresEngine:
    name = "postgres"

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        import psycopg

        self.label = redact(url)
        self._psycopg = psycopg
        try:
            self._con = psycopg.connect(url, autocommit=True, connect_timeout=10,
                                        options="-c TimeZone=UTC")
        except psycopg.Error as exc:
            raise StoreError(f"database down: {self.label}: {_reason(exc)}") from None
        if read_only:
            self._con.execute("SET default_transaction_read_only = on")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        errors = self._psycopg.errors
        try:
            yield
        except (errors.SerializationFailure, errors.DeadlockDetected) as exc:
            raise ConflictError(
                f"{self.label}: a concurrent change touched the same rows "
                f"({_reason(exc)}); reload and apply your change again"
            ) from None
        except self._psycopg.OperationalError as exc:
            raise StoreError(f"database down: {self.label}: {_reason(exc)}") from None

    def fetch(self, sql: str, params: Sequence[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._errors():
            cur = self._con.execute(_pg(sql), list(params))
            names = [d.name for d in cur.description or ()]
            return names, cur.fetchall() if cur.description else []

    def execute(self, sql: str, params: Sequence[Any]) -> int:
        with self._errors():
            cur = self._con.execute(_pg(sql), list(params))
            return max(cur.rowcount, 0)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._errors(), self._con.cursor() as cur:
            cur.executemany(_pg(sql), [list(r) for r in rows])

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._errors(), self._con.cursor() as cur, \
                cur.copy(f"COPY {table} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(list(row))

    def ddl(self, statement: str) -> str:
        return re.sub(r"\bDOUBLE\b(?!\s+PRECISION)", "DOUBLE PRECISION", statement)

    @contextmanager
    def migration_lock(self) -> Iterator[None]:
        """Two processes opening a new database at once: one migrates, the other waits."""
        with self._errors():
            self._con.execute("SELECT pg_advisory_lock(%s)", [_MIGRATION_LOCK])
        try:
            yield
        finally:
            with self._errors():
                self._con.execute("SELECT pg_advisory_unlock(%s)", [_MIGRATION_LOCK])

    def reclaim(self, tables: Sequence[str]) -> None:
        """Rewrite the tables so deleted rows' bytes leave the data files (not the WAL)."""
        with self._errors():
            for table in tables:
                self._con.execute(f"VACUUM FULL {table}")  # sql: schema constants only

    def close(self) -> None:
        self._con.close()


@lru_cache(maxsize=2048)
def _pg(sql: str) -> str:
    """``?`` placeholders -> ``%s`` (and a literal ``%`` -> ``%%``), outside quoted text."""
    out: list[str] = []
    quote: str | None = None
    for ch in sql:
        if quote:
            out.append("%%" if ch == "%" else ch)
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch)
    return "".join(out)


def _is_dml(sql: str) -> bool:
    return sql.lstrip()[:6].upper() in ("UPDATE", "DELETE", "INSERT")


# connection failures, as a user would put them
_REASONS = (
    ("connection refused", "connection refused"),
    ("no such file or directory", "connection refused (no server on that socket)"),
    ("could not translate host name", "unknown host"),
    ("timeout expired", "connection timed out"),
    ("password authentication failed", "authentication failed"),
    ("no password supplied", "authentication failed (no password supplied)"),
    ("server closed the connection", "the server closed the connection"),
    ("terminating connection", "the server closed the connection"),
    ("the connection is closed", "the connection is closed"),
)


def _reason(exc: Exception) -> str:
    text = str(exc)
    lowered = text.lower()
    for needle, reason in _REASONS:
        if needle in lowered:
            return reason
    found = re.search(r"FATAL:\s+(.+)", text)
    if found:
        return found.group(1).splitlines()[0].strip()
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first.split(": ", 1)[-1] if first.startswith(("connection failed", "connection is bad")) else first
