"""The build's progress events, re-exported from ``memory_core.progress`` (the bottom floor,
where the front ends can import them too). Producers here import them from either place."""

from memory_core.progress import (
    BuildDone,
    BuildEvent,
    BuildStarted,
    ConversationQueued,
    EntitiesMerged,
    EpisodeFormed,
    GraphUpdated,
    RecordsExtracted,
    SessionDone,
    SessionSkipped,
    SessionStarted,
)

__all__ = [
    "BuildDone",
    "BuildEvent",
    "BuildStarted",
    "ConversationQueued",
    "EntitiesMerged",
    "EpisodeFormed",
    "GraphUpdated",
    "RecordsExtracted",
    "SessionDone",
    "SessionSkipped",
    "SessionStarted",
]
