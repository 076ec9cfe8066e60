"""Importing conversations: format detection, one module per format, safe reading.

    load_file(path, fmt=None, limits=...) -> Loaded(format, conversations, warnings)
    detect_format(path) -> "locomo" | "longmemeval" | "json" | "jsonl" | "csv" | "text"

Nothing here touches the store: a file is read and validated completely first, and only a
fully valid result is handed to ``services.importing`` to save in one transaction. Every
problem is an ``IngestError`` (``<file>: <where>: <what>``); see docs/formats.md.
"""

from memory_core.ingest.detect import FORMATS, Loaded, detect_format, load_file

__all__ = ["FORMATS", "Loaded", "detect_format", "load_file"]
