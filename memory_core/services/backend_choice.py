"""How every service call names its backend: ``BackendChoice = Backend | str | None``.

``builds.build``/``build_all``/``build_tracked``, ``queries.ask_detailed`` and
``evaluation.evaluate``/``longmemeval`` all take the same ``backend=`` argument, resolved by one
``BackendChoices.resolve``:

    None          the services' own backend (``make_backend`` of the settings)
    a name        "offline", "openai", …: the own backend when it is the configured one, else
                  one made once per name by ``memory_core.backends.make_backend``
    a Backend     used as given (a script or test holding a backend with other LLM settings)
    anything else a ``ConfigError`` naming the type
"""

from __future__ import annotations

import dataclasses
import threading

from memory_core.backends import make_backend
from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore
from memory_core.embeddings import Embedder
from memory_core.errors import ConfigError

BackendChoice = Backend | str | None


class BackendChoices:
    """The services' backend and the others made by name (shared by queries, builds, evaluation)."""

    def __init__(self, settings: Settings, store: RelationalStore, embedder: Embedder,
                 default: Backend) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.default = default
        self._made: dict[str, Backend] = {}
        self._lock = threading.Lock()

    def resolve(self, choice: BackendChoice) -> Backend:
        if choice is None:
            return self.default
        if isinstance(choice, str):
            return self._named(choice)
        if not isinstance(choice, Backend):  # callers outside mypy (scripts, tests) get one line
            raise ConfigError(f"not a backend: {type(choice).__name__} (needs segment/extract/plan/answer)")
        return choice

    def name(self, choice: BackendChoice) -> str:
        """The name a report records for ``choice`` (None: the configured backend's name)."""
        if choice is None:
            return self.settings.backend
        return choice if isinstance(choice, str) else self.resolve(choice).name

    def _named(self, name: str) -> Backend:
        if name == self.settings.backend:
            return self.default
        with self._lock:
            if name not in self._made:
                self._made[name] = make_backend(dataclasses.replace(self.settings, backend=name), self.store,
                                                embedder=self.embedder)
            return self._made[name]
