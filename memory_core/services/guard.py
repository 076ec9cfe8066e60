"""The access check every service call passes: ``Guarded(part, service, gate)``.

``Services`` hands each front end its parts (imports, queries, builds, curation, evaluation)
wrapped in a ``Guarded`` proxy bound to one principal and one front end. A method call looks
up its rule in ``RULES`` — the permission it needs, where its conversation comes from, what it
writes to the audit trail — and then:

  1. refuses with ``AccessError`` if the principal lacks the permission, or is a token scoped
     to another conversation (a method missing from ``RULES`` needs admin: fail closed);
  2. for an account or token, sets the call's ``who`` to the principal's name (the edit log
     records the logged-in account, whatever the front end typed);
  3. runs the call and appends the audit row (refusals are audited too).

    conv source   the conversation is …
    conv_id       the argument ``conv_id``
    record        the conversation of the record ``record_id``
    edit          the conversation of the edit ``edit_id``
    trace         the conversation of the trace ``trace_id``
    convs         every id of ``convs`` / ``conv_ids`` (a scoped token must name only its own)
    none          every conversation (a scoped token may not call it unless ``filter`` is set)
    free          no conversation's content (strategy names, a diff of an edit in hand)

Attributes that are not methods (``settings``, ``index_cache``…) pass through unchecked.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from memory_core.contracts import RelationalStore
from memory_core.errors import AccessError
from memory_core.services.access import AccessService, Principal


@dataclass(frozen=True)
class Rule:
    permission: str
    conv: str = "conv_id"  # see the module docstring
    audit: str | None = None  # the audit action written after the call ('read' rows are rate-limited)
    filter: bool = False  # a scoped token sees only its conversation in the result (a list)
    upload: str | None = None  # the permission instead when the call's ``source`` is an upload

    def needs(self, args: dict[str, Any]) -> str:
        """The permission this call needs (``upload`` for a ``source`` holding bytes)."""
        if self.upload is not None and getattr(args.get("source"), "data", None) is not None:
            return self.upload
        return self.permission


R, A, E = "read", "annotate", "evaluate"
RULES: dict[str, dict[str, Rule]] = {
    "imports": {
        "list_conversations": Rule(R, "none", filter=True),
        "conversation_ids": Rule(R, "none", filter=True),
        "stats": Rule(R, "conv_id", "read"),
        "conversation": Rule(R, "conv_id", "read"),
        "require_conversations": Rule(R, "convs"),
        # a path on the server needs import; an upload, read in memory, evaluate (a gold file)
        "load": Rule("import", "free", upload=E),
        "detect_format": Rule("import", "free", upload=E),
        "preview": Rule("import", "free", upload=E),
        "import_file": Rule("import", "none", "import"),
        "save_streamed": Rule("import", "none", "import"),
        "save_loaded": Rule("import", "none", "import"),
        "forget": Rule("forget", "conv_id", "forget"),
        "compact_index": Rule("manage", "none"),  # the whole index: an administrator's task
        "turns": Rule(R, "conv_id", "read"),
        "record": Rule(R, "record", "read"),
        "append_file": Rule("import", "none", "import"),  # grows known conversations, then builds
        "remember": Rule("import", "conv_id", "import"),
        "export_json": Rule("export", "conv_id", "export"),
    },
    "queries": {
        "conversation_index": Rule(R), "invalidate": Rule(R), "warm": Rule(R),
        "strategies": Rule(R, "free"), "vocabulary": Rule(R),
        "ask_detailed": Rule("ask", "conv_id", "ask"),
        "ask": Rule("ask", "conv_id", "ask"),
        "search": Rule("ask", "conv_id", "ask"),
        "trace": Rule(R, "trace", "read"),
        "traces": Rule(R, "conv_id", "read"),
        "key_records": Rule(R, "conv_id"),
    },
    "builds": {
        "build": Rule("build", "conv_id", "build"),
        "build_all": Rule("build", "none", "build"),
        "build_on_cluster": Rule("build", "convs", "build"),
        "build_tracked": Rule("build", "conv_id", "build"),
        "mark_failed": Rule("build", "conv_id"),
        "build_status": Rule(R, "none", filter=True),
        "episodes": Rule(R, "conv_id", "read"),
        "entity_graph": Rule(R, "conv_id", "read"),
        "event_graph": Rule(R, "conv_id", "read"),
        "export_graphml": Rule("export", "conv_id", "export"),
        "build_history": Rule(R, "conv_id", "read"),
        "queue": Rule("build", "convs"),
        "measure": Rule(R, "conv_id", "read"), "memory_ids": Rule(R, "conv_id", "read"),
    },
    "curation": {
        "search_records": Rule(R, "conv_id", "read"), "record_facets": Rule(R),
        "records": Rule(R, "conv_id", "read"), "records_naming": Rule(R, "conv_id", "read"),
        "records_by_ids": Rule(R, "none", filter=True),
        "edit_log": Rule(R), "record_history": Rule(R, "record"), "cite_counts": Rule(R),
        "review_queue": Rule(R), "supersession": Rule(R), "record_diff": Rule(R, "free"),
        "answer_diff": Rule(R, "free"),
        "export_corrected_records": Rule("export", "conv_id", "export"),
        "edit_record": Rule(A, "record", "edit"), "delete_record": Rule(A, "record", "edit"),
        "mark_wrong": Rule(A, "record", "edit"), "restore_record": Rule(A, "record", "edit"),
        "create_record": Rule(A, "conv_id", "edit"), "merge_entities": Rule(A, "conv_id", "edit"),
        "revert_edit": Rule(A, "edit", "edit"), "impact": Rule(A, "conv_id", "evaluate"),
        "refresh_entity_graph": Rule(A, "conv_id", "edit"),
    },
    "evaluation": {
        "gold_questions": Rule(E, "convs"), "evaluate": Rule(E, "convs", "evaluate"),
        "curve": Rule(E, "convs", "evaluate"), "benchmark_format": Rule(E, "free"),
        "longmemeval": Rule("import", "none", "evaluate"), "triage": Rule(E, "conv_id", "read"),
        "gold_items": Rule(R, "conv_id", "read"), "llm_judge": Rule(E, "free"),
        "fit_candidates": Rule("import", "none", "evaluate"),
    },
}
ADMIN_ONLY = Rule("manage", "none")  # a method missing from RULES


@dataclass(frozen=True)
class Gate:
    """Who calls (principal), from where (front end), and where checks and audit rows go."""

    principal: Principal
    frontend: str
    access: AccessService
    store: RelationalStore

    def conversations(self, rule: Rule, args: dict[str, Any]) -> list[str | None]:
        """The conversations a call touches (``[None]``: none named)."""
        source = rule.conv
        if source == "free":
            return []
        if source == "none":
            return [None]
        if source == "convs":
            raw = args.get("convs", args.get("conv_ids"))
            if raw is None:
                return [None]
            items = [raw] if isinstance(raw, str) else list(raw)
            return [str(i) for i in items] or [None]
        if source == "conv_id":
            value = args.get("conv_id")
            return [None if value is None else str(value)]
        lookup: dict[str, Callable[[str], str]] = {
            "record": lambda i: self.store.record(i).conv_id,
            "edit": lambda i: self.store.edit(i).conv_id,
            "trace": lambda i: self.store.trace(i).conv_id,
        }
        return [lookup[source](str(args[f"{source}_id"]))]

    def check(self, part: str, name: str, rule: Rule, args: dict[str, Any]) -> list[str | None]:
        principal = self.principal
        convs = self.conversations(rule, args)
        permission = rule.needs(args)
        try:
            for conv in convs or [principal.conv_scope]:
                if rule.filter and conv is None and principal.can(permission):
                    continue  # the result is filtered to the token's conversation
                principal.require(permission, conv)
        except AccessError:
            self.access.record(principal, self.frontend, "refused", convs[0] if convs else None,
                               f"{part}.{name}")
            raise
        return convs

    def audit(self, part: str, name: str, rule: Rule, convs: list[str | None], args: dict[str, Any],
              result: Any) -> None:
        if rule.audit is None:
            return
        conv = convs[0] if len(convs) == 1 else None
        if conv is None and rule.audit == "import" and len(getattr(result, "ids", [])) == 1:
            conv = str(result.ids[0])
        if rule.audit == "read":  # the app's frame audits page views instead (one row per page)
            if conv is not None and self.frontend != "app":
                self.access.record_read(self.principal, self.frontend, conv, part)
            return
        detail = _detail(name, args, result, convs)
        self.access.record(self.principal, self.frontend, rule.audit, conv, detail)


def _detail(name: str, args: dict[str, Any], result: Any, convs: list[str | None]) -> str:
    if "question" in args:
        return str(args["question"])
    if name == "search" and "query" in args:  # an agent's memory search: its words, like a question
        return f"search {args['query']}"
    parts = [name]
    source = args.get("source")
    if getattr(source, "data", None) is not None:  # an upload: its name, never its bytes
        parts.append(f"name={getattr(source, 'name', '')}")
    elif source is not None:  # a path, or a Source holding one
        parts.append(f"path={getattr(source, 'path', None) or source}")
    for key in ("record_id", "edit_id", "keep", "merge", "path", "name", "file", "session"):
        if args.get(key) is not None:
            parts.append(f"{key}={args[key]}")
    ids = getattr(result, "ids", None)
    if isinstance(ids, list):
        parts.append("conversations=" + ",".join(map(str, ids[:20])))
    if len(convs) > 1:
        parts.append("conversations=" + ",".join(str(c) for c in convs[:20]))
    return " ".join(parts)


class Guarded:
    """A service part seen by one principal through one front end (see the module docstring)."""

    def __init__(self, part: str, inner: Any, gate: Gate) -> None:
        self._part = part
        self._inner = inner
        self._gate = gate

    def __getattr__(self, name: str) -> Any:
        if name in ("_inner", "_gate", "_part"):  # not set yet (a copy being made)
            raise AttributeError(name)
        attr = getattr(self._inner, name)
        if name.startswith("_") or not callable(attr):
            return attr
        rule = RULES.get(self._part, {}).get(name, ADMIN_ONLY)
        gate, part = self._gate, self._part
        signature = _signature(attr)
        takes_who = "who" in signature.parameters

        def call(*args: Any, **kwargs: Any) -> Any:
            if takes_who and gate.principal.kind != "local":
                kwargs["who"] = gate.principal.name
            try:
                bound = dict(signature.bind_partial(*args, **kwargs).arguments)
            except TypeError:
                bound = dict(kwargs)
            convs = gate.check(part, name, rule, bound)
            result = attr(*args, **kwargs)
            if inspect.isgenerator(result):
                return _audited_stream(result, lambda: gate.audit(part, name, rule, convs, bound, None))
            if rule.filter and gate.principal.conv_scope is not None:
                result = _only(result, gate.principal.conv_scope)
            gate.audit(part, name, rule, convs, bound, result)
            return result

        call.__name__ = name
        call.__doc__ = attr.__doc__
        return call


_SIGNATURES: dict[tuple[Any, bool], inspect.Signature] = {}


def _signature(attr: Callable[..., Any]) -> inspect.Signature:
    """``inspect.signature(attr)``, worked out once per function (a bound method's does not
    depend on its instance); every guarded call needs it."""
    func = getattr(attr, "__func__", None)
    key = (attr if func is None else func, func is not None)
    found = _SIGNATURES.get(key)
    if found is None:
        found = _SIGNATURES[key] = inspect.signature(attr)
    return found


def _audited_stream(stream: Iterable[Any], done: Callable[[], None]) -> Any:
    """A build's event stream; the audit row is written once it has run to its end."""
    yield from stream
    done()


def _only(result: Any, conv_id: str) -> Any:
    """A listing cut down to one conversation (ids, dicts with ``id``/``conv_id``, or objects
    with a ``conv_id`` such as records)."""
    if not isinstance(result, list):
        return result
    kept = []
    for item in result:
        key: object
        if isinstance(item, str):
            key = item
        elif isinstance(item, dict):
            key = item.get("conv_id", item.get("id"))
        else:
            key = getattr(item, "conv_id", conv_id)
        if key == conv_id:
            kept.append(item)
    return kept
