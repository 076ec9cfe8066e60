"""Mnemoscope's library: models, import, build, query, storage, evaluation, CLI.

It never imports Streamlit. The public entry point is ``memory_core.services.Services``.
"""

from memory_core.config import Settings
from memory_core.errors import (
    BuildError,
    ConfigError,
    ConflictError,
    IngestError,
    LLMError,
    MnemoscopeError,
    QueryError,
    StoreError,
)

__all__ = [
    "BuildError",
    "ConfigError",
    "ConflictError",
    "IngestError",
    "LLMError",
    "MnemoscopeError",
    "QueryError",
    "Settings",
    "StoreError",
]
