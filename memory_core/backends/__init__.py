"""Backends: who does the thinking in each stage, and the factory that picks them.

    make_backend(settings, store, embedder=..., stages={"segment": "offline", "extract": "openai"})
        -> OfflineBackend | OpenAIBackend | StagedBackend (a mix per stage)
    make_judge(settings, store) -> judge(question, gold, answer) -> bool  (always the LLM)

``settings.backend`` is the default for every stage; ``stages`` overrides single stages. The
offline backend is imported lazily (it loads spaCy and friends), the openai one needs a key
or a base URL unless ``settings.llm.cache_only`` replays from the cache.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memory_core.config import Settings
from memory_core.contracts import STAGES, Backend, ConversationInfo, Extraction, RelationalStore, Vocabulary
from memory_core.embeddings import Embedder, shared_embedder
from memory_core.errors import ConfigError

BACKEND_NAMES = ("offline", "openai")


def make_backend(settings: Settings, store: RelationalStore | None = None, *,
                 embedder: Embedder | None = None, stages: Mapping[str, str] | None = None,
                 check_endpoint: bool = True) -> Backend:
    """The backend for a run: one implementation, or a per-stage mix.

    ``embedder`` goes to the offline backend (default: the process-wide one). With
    ``check_endpoint=False`` (the services facade, which is opened for ``list`` too) a missing
    key is not an error here: the first call to the endpoint raises the same ``ConfigError``.
    """
    embedder = embedder if embedder is not None else shared_embedder(settings.embed_precision)
    choice = dict.fromkeys(STAGES, settings.backend)
    for stage, name in (stages or {}).items():
        if stage not in STAGES:
            raise ConfigError(f"unknown stage '{stage}' (stages: {', '.join(STAGES)})")
        choice[stage] = name
    for stage, name in choice.items():
        if name not in BACKEND_NAMES:
            raise ConfigError(f"stage '{stage}': unknown backend '{name}' ({', '.join(BACKEND_NAMES)})")
    instances: dict[str, Backend] = {}
    for name in dict.fromkeys(choice.values()):
        instances[name] = _instantiate(name, settings, store, embedder, check_endpoint)
    if len(instances) == 1:
        return next(iter(instances.values()))
    from memory_core.backends.staged import StagedBackend

    return StagedBackend({stage: instances[name] for stage, name in choice.items()})


def make_judge(settings: Settings, store: RelationalStore | None = None) -> Callable[[str, str, str], bool]:
    """The LLM judge (LoCoMo-style CORRECT/WRONG) on the configured endpoint and judge model."""
    from memory_core.backends.openai.backend import OpenAIBackend

    _check_endpoint(settings)
    return OpenAIBackend(settings.llm, store).judge


def _instantiate(name: str, settings: Settings, store: RelationalStore | None, embedder: Embedder,
                 check_endpoint: bool) -> Backend:
    if name == "openai":
        from memory_core.backends.openai.backend import OpenAIBackend

        if check_endpoint:
            _check_endpoint(settings)
        return OpenAIBackend(settings.llm, store)
    from memory_core.backends.offline.backend import OfflineBackend

    return OfflineBackend(embedder=embedder)


def _check_endpoint(settings: Settings) -> None:
    llm = settings.llm
    if not llm.api_key and not llm.base_url and not llm.cache_only:
        raise ConfigError("the openai backend needs OPENAI_API_KEY (or OPENAI_BASE_URL pointing at a "
                          "local OpenAI-compatible server, or --cache-only to replay cached calls)")


__all__ = ["BACKEND_NAMES", "Backend", "ConversationInfo", "Extraction", "Vocabulary", "make_backend",
           "make_judge"]
