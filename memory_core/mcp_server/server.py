"""The memory over MCP: ``make_server(services, app_url)`` -> an ``MCPServer`` (official SDK).

A thin front end over ``memory_core.services.Services`` — every tool is one or two facade
calls, nothing here reaches the store or the index. Tools (typed inputs, structured results
from ``results.py``):

    list_conversations()                                  read-only
    search_memory(conversation, query, limit=10)          read-only*  records + their source turns
    ask(conversation, question, as_of=None)               read-only*  answer, support, cited turns
    get_turns(conversation, ids)                          read-only
    get_record(id)                                        read-only
    remember(conversation, turns, session=None, date=None) additive: appends turns, builds what is new

(* they save a trace — the Ask page lists it under the agent's name — but change no memory.)
A project error becomes an MCP tool error whose text is the one line the CLI prints; bad
arguments are refused against the input schema, also as a one-line tool error
(``search_memory: limit: Input should be greater than or equal to 1``); a bug is a tool error
without details (the traceback stays in the server's log).

Every call runs as a principal through ``services.for_principal(principal, "mcp")`` — checked
by the guard (role, conversation scope) and audited with front end ``mcp``; a refusal is a tool
error with the guard's one line. Over HTTP (``http_app``) each request's API token decides the
principal; over stdio the ``principal`` given to ``make_server`` (``auth.stdio_principal``:
``MNEMOSCOPE_TOKEN`` or the local user). Calls run
one at a time (one lock around the services): the store and the build are not meant to be
driven from several threads of one process at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError
from starlette.types import ASGIApp

from memory_core.errors import MnemoscopeError
from memory_core.mcp_server.auth import BearerGate
from memory_core.mcp_server.results import (
    AskResult,
    ConversationList,
    RecordOut,
    RememberResult,
    SearchResult,
    TurnIn,
    TurnList,
    cited,
    conversation_out,
    record_out,
    turn_out,
)
from memory_core.progress import BuildDone
from memory_core.services import MemoryServices, Principal

T = TypeVar("T")
DEFAULT_APP_URL = "http://127.0.0.1:8501"
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
# remember only adds turns (and builds their memory): writes, not destructive, not idempotent
APPEND = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                         open_world_hint=False)
INSTRUCTIONS = (
    "Long-term memory of multi-session conversations. list_conversations first; then ask a question "
    "(an answer with cited turns) or search_memory (records: entity, property, value, valid time, source "
    "turns). remember appends new turns to a conversation and builds their memory."
)


def client_name(ctx: Context[Any, Any] | None) -> str:
    """The calling client's name from its handshake (``mcp client`` when it gave none)."""
    try:
        info = ctx.session.client_params.client_info if ctx is not None else None
    except Exception:  # no session (in-process call) or no params (stateless request)
        info = None
    name = getattr(info, "name", "") or ""
    return f"mcp:{name}" if name else "mcp client"


def _as_of(text: str | None) -> datetime | None:
    if text is None or not text.strip():
        return None
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"as_of: expected a date YYYY-MM-DD (optionally with HH:MM), got {text!r}") from None


def request_principal(ctx: Context[Any, Any] | None) -> tuple[bool, Principal | None]:
    """(came over HTTP, the principal ``auth.BearerGate`` verified for that request)."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # no request (an in-process call)
        request = None
    if request is None:
        return False, None
    state = getattr(request, "state", None)
    principal = getattr(state, "principal", None)
    return True, principal if isinstance(principal, Principal) else None


class MemoryTools:
    """The tools' bodies over one ``Services``, each call run as its principal through the
    front end ``mcp`` (one call at a time). ``principal``: who stdio calls run as (default: the
    services' own); an HTTP call runs as its request's verified token, and is refused without one."""

    def __init__(self, services: MemoryServices, app_url: str = DEFAULT_APP_URL,
                 principal: Principal | None = None) -> None:
        self.services = services
        self.app_url = app_url.rstrip("/")
        self.principal = principal or services.principal
        self.lock = threading.Lock()

    def view(self, ctx: Context[Any, Any] | None) -> MemoryServices:
        """The services as this call's principal (checked and audited as ``mcp``)."""
        over_http, principal = request_principal(ctx)
        if over_http and principal is None:
            raise ToolError("API token required")  # the HTTP app was served without auth.BearerGate
        return self.services.for_principal(principal or self.principal, "mcp")

    @contextmanager
    def _call(self, ctx: Context[Any, Any] | None) -> Iterator[MemoryServices]:
        services = self.view(ctx)
        with self.lock:
            try:
                yield services
            except MnemoscopeError as exc:
                raise ToolError(_one_line(exc)) from exc

    def link(self, conv_id: str, trace_id: str) -> str:
        return f"{self.app_url}/ask?{urlencode({'conv': conv_id, 'trace': trace_id})}"

    def list_conversations(self, ctx: Context[Any, Any] | None) -> ConversationList:
        with self._call(ctx) as s:
            rows = s.imports.list_conversations()
        return ConversationList(conversations=[conversation_out(r) for r in rows])

    def search_memory(self, conversation: str, query: str, limit: int,
                      ctx: Context[Any, Any] | None) -> SearchResult:
        with self._call(ctx) as s:
            trace, records = s.queries.search(conversation, query, limit=limit, client=client_name(ctx))
            ids = [t for r in records for t in r.evidence_turn_ids]
            turns = {t.id: t for t in s.imports.turns(conversation, ids)} if ids else {}
        return SearchResult(conversation=conversation, query=trace.question, tokens=trace.buffer_tokens,
                            records=[record_out(r, turns) for r in records], trace_id=trace.id,
                            app_link=self.link(conversation, trace.id))

    def ask(self, conversation: str, question: str, as_of: str | None,
            ctx: Context[Any, Any] | None) -> AskResult:
        when = _as_of(as_of)
        with self._call(ctx) as s:
            trace = s.queries.ask(conversation, question, now=when, client=client_name(ctx))
            ids = list(trace.answer.cited_turn_ids)
            turns = s.imports.turns(conversation, ids) if ids else []
        answer = trace.answer
        support = answer.support.value if answer.support else ("supported" if answer.supported else "unknown")
        return AskResult(conversation=conversation, question=trace.question, answer=answer.text,
                         support=support, cited_turns=cited(trace, turns), trace_id=trace.id,
                         app_link=self.link(conversation, trace.id))

    def get_turns(self, conversation: str, ids: list[str], ctx: Context[Any, Any] | None) -> TurnList:
        with self._call(ctx) as s:
            found = s.imports.turns(conversation, ids)
        return TurnList(conversation=conversation, turns=[turn_out(t) for t in found])

    def get_record(self, record_id: str, ctx: Context[Any, Any] | None) -> RecordOut:
        with self._call(ctx) as s:
            record = s.imports.record(record_id)
            turns = s.imports.turns(record.conv_id, list(record.evidence_turn_ids))
        return record_out(record, {t.id: t for t in turns})

    def remember(self, conversation: str, turns: list[TurnIn], session: int | None,
                 date: str | None, ctx: Context[Any, Any] | None) -> RememberResult:
        when = _as_of(date)
        with self._call(ctx) as s:
            grown = s.imports.remember(conversation, [(t.speaker, t.text) for t in turns], session=session,
                                       when=when)
            stats: dict[str, Any] = {}
            for event in s.builds.build(conversation):
                if isinstance(event, BuildDone):
                    stats = dict(event.stats)
            counts = s.imports.stats(conversation)
        index = grown.session_extended if grown.session_extended is not None else grown.sessions_added[0]
        return RememberResult(conversation=conversation, session=index,
                              new_session=bool(grown.sessions_added),
                              turn_ids=grown.turn_ids, sessions_built=int(stats.get("sessions_built", 0)),
                              episodes=counts["episodes"], records=counts["records"],
                              build_seconds=float(stats.get("seconds", 0.0)))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Server(MCPServer[Any]):
    """The SDK's server, with one-line tool errors: the project's line as the CLI prints it
    (not prefixed), and a rejected argument as ``tool: field: what is wrong``."""

    memory_tools: MemoryTools  # the tools' bodies (``http_app`` needs their services and lock)

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                                     for e in cause.errors())
                raise ToolError(f"{name}: {problems}") from cause
            if isinstance(cause, ToolError):
                raise ToolError(str(cause)) from cause
            raise


def make_server(services: MemoryServices, app_url: str = DEFAULT_APP_URL, *,
                principal: Principal | None = None) -> MCPServer[Any]:
    """The MCP server over ``services``: six tools (see the module docstring). Over stdio the
    calls run as ``principal`` (default: the services' own); over HTTP serve ``http_app``."""
    return _build(MemoryTools(services, app_url, principal))


def http_app(server: MCPServer[Any], host: str = "127.0.0.1") -> ASGIApp:
    """The streamable HTTP app of a ``make_server`` server, behind ``auth.BearerGate`` (every
    request carries a verified API token)."""
    if not isinstance(server, _Server):
        raise TypeError("http_app: a server from make_server")
    tools = server.memory_tools
    return BearerGate(server.streamable_http_app(host=host), tools.services, tools.lock)


def _build(tools: MemoryTools) -> MCPServer[Any]:
    server = _Server("mnemoscope", title="Mnemoscope memory", instructions=INSTRUCTIONS)
    server.memory_tools = tools

    def register(annotations: ToolAnnotations, title: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        return server.tool(title=title, annotations=annotations, structured_output=True)

    @register(READ, "List conversations")
    def list_conversations(ctx: Context[Any, Any] | None = None) -> ConversationList:
        """The conversations in the memory, with their counts (sessions, turns, episodes, records)."""
        return tools.list_conversations(ctx)

    @register(READ, "Search memory")
    def search_memory(
        conversation: str = Field(description="conversation id (see list_conversations)"),
        query: str = Field(description="what to look for, in words"),
        limit: int = Field(10, ge=1, le=50, description="how many records at most"),
        ctx: Context[Any, Any] | None = None,
    ) -> SearchResult:
        """Records of the memory that match the query (entity, property, value, valid time), each with
        its source turns (id, speaker, date, quoted text)."""
        return tools.search_memory(conversation, query, limit, ctx)

    @register(READ, "Ask the memory")
    def ask(
        conversation: str = Field(description="conversation id (see list_conversations)"),
        question: str = Field(description="a question about the conversation"),
        as_of: str | None = Field(None, description="ask as of this date (YYYY-MM-DD): relative dates in "
                                                    "the question count back from it"),
        ctx: Context[Any, Any] | None = None,
    ) -> AskResult:
        """Answer a question from the memory: the answer, how well the evidence supports it, the turns it
        cites, and the trace (id and app link) that shows how it was found."""
        return tools.ask(conversation, question, as_of, ctx)

    @register(READ, "Get turns")
    def get_turns(
        conversation: str = Field(description="conversation id"),
        ids: list[str] = Field(min_length=1, max_length=200, description="turn ids, e.g. D3:7"),
        ctx: Context[Any, Any] | None = None,
    ) -> TurnList:
        """Turns of a conversation by id, in dialogue order (speaker, session date, text)."""
        return tools.get_turns(conversation, ids, ctx)

    @register(READ, "Get a record")
    def get_record(id: str = Field(description="record id (from search_memory)"),
                   ctx: Context[Any, Any] | None = None) -> RecordOut:
        """One record of the memory with its source turns."""
        return tools.get_record(id, ctx)

    @register(APPEND, "Remember turns")
    def remember(
        conversation: str = Field(description="conversation id (see list_conversations)"),
        turns: list[TurnIn] = Field(min_length=1, max_length=500, description="the new turns, in order"),
        session: int | None = Field(None, ge=1, description="the last session's index to add to it; omitted "
                                                           "or higher: a new session"),
        date: str | None = Field(None, description="a new session's date (YYYY-MM-DD[ HH:MM]; default now)"),
        ctx: Context[Any, Any] | None = None,
    ) -> RememberResult:
        """Append turns to a conversation (a new session, or the end of its last session) and build the
        memory of what is new; older sessions' memory, edits and traces stay."""
        return tools.remember(conversation, turns, session, date, ctx)

    return server
