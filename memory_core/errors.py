"""The project's error hierarchy.

Everything the UI and CLI catch and show as one clear line derives from
``MnemoscopeError``; any other exception is a bug and is allowed to surface.

    MnemoscopeError
     ├── IngestError      a file could not be imported (names file, where, what)
     ├── BuildError       memory construction failed (names conversation/session)
     ├── LLMError         an LLM stage failed after repair/retries (names stage, item)
     ├── StoreError       storage problem: missing conversation, conflict, home in use
     │    └── ConflictError   optimistic-concurrency conflict on a record edit
     ├── QueryError       a question could not be planned/answered
     ├── ConfigError      bad settings or environment
     └── AccessError      the principal may not do this (also a ``PermissionError``); a
                          failed login, a wrong/revoked token, a locked account
"""

from __future__ import annotations


class MnemoscopeError(Exception):
    """Base class of every error the project raises on purpose."""


class IngestError(MnemoscopeError):
    """A file could not be imported.

    The message is one line: ``<file>: <where>: <what is wrong>``.
    """

    def __init__(self, file: str, where: str, what: str) -> None:
        self.file = file
        self.where = where
        self.what = what
        location = f"{file}: {where}" if where else file
        super().__init__(f"{location}: {what}")


class BuildError(MnemoscopeError):
    """Memory construction failed for a conversation or session."""


class LLMError(MnemoscopeError):
    """An LLM call failed for good (after retries and one repair request)."""

    def __init__(self, stage: str, item: str, what: str) -> None:
        self.stage = stage
        self.item = item
        super().__init__(f"LLM stage '{stage}' failed for {item}: {what}")


class StoreError(MnemoscopeError):
    """Storage problem: unknown id, home in use, invalid state."""


class ConflictError(StoreError):
    """Someone else saved the same record first (optimistic concurrency)."""


class QueryError(MnemoscopeError):
    """A question could not be planned, retrieved or answered."""


class ConfigError(MnemoscopeError):
    """Invalid settings or environment."""


class AccessError(MnemoscopeError, PermissionError):
    """The caller's account or token may not do this, or could not be verified.

    One line naming who, what and why: ``viewer 'vic' may not edit records (needs annotator)``.
    """
