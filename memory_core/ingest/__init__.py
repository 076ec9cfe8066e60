"""Importing conversations: format detection, one module per format, safe reading.

    load_file(path, fmt=None, limits=...) -> Loaded(format, conversations, warnings)
    stream_file(path, ...) -> Streamed(format, ids, turns, warnings, per_item, conversations())
    detect_format(path) -> "locomo" | "longmemeval" | "realtalk" | "beam" | "chatgpt" | "claude"
                           | "json" | "jsonl" | "csv" | "text"  (a BEAM chat: its directory too)
    detect_bytes(name, data) -> the same, for an upload held in memory

Nothing here touches the store: a file is read and validated completely first, and only a
fully valid result is handed to ``services.importing`` to save in one transaction (a
streamed benchmark layout: validated whole, then saved in batches of whole conversations). Every
problem is an ``IngestError`` (``<file>: <where>: <what>``); see docs/formats.md.
"""

from memory_core.ingest.detect import (
    FORMATS,
    Loaded,
    Streamed,
    detect_bytes,
    detect_format,
    load_bytes,
    load_file,
    stream_file,
)

__all__ = ["FORMATS", "Loaded", "Streamed", "detect_bytes", "detect_format", "load_bytes",
           "load_file", "stream_file"]
