"""A small MCP host: discover tools over MCP, admit what the run grants, prepare one request
through its stages, and send it with the OpenAI (or Anthropic) Python SDK.

The stages are the ones a request pipeline records (the `kind` of each stage in a scenario
file, run in recorded order); each one hands its live request on through
`boundary(point, tools, messages)`, which is `ports.inject` under toolsurface and nothing at all
in production. The guard is optional: `McpHost(..., guard=None)` is the same host with the guard
removed.

- admission: `tools/list` over the MCP client session; keep the granted names; project them less
  what trusted owner facts hide. The guard's baseline is taken here. (No point.)
- recover: resume; the tools are projected again from the admission record and the trusted
  facts, the transcript is only history. → `post_recovery`
- hook: run the registered pre-request hooks. → `hook`
- revalidate: the owners narrow by trusted facts and never add; `rebuild` lists the tools from
  the MCP server again. → `post_revalidation`
- context_fit: compress the conversation to the recorded number of messages (the guard checks
  the budget first). → `context_fit`
- evidence: append the evidence messages. → `evidence`
- publication: append the already-publishable body, as it stands. → `publication`
- async_prep: yield to the event loop, then attach request metadata. → `async_prep`
- seal: record the request (a snapshot of its tools). → `post_seal`
- send: the guard's final check, then the SDK call. (No point.)

The MCP server may page its `tools/list` (the host follows `nextCursor` to the last page) and may
change its list mid-request, telling the host with `notifications/tools/list_changed`. The host
then lists again at the next boundary, and it lists once more right before the send (a
notification may still be on its way). With the guard, a re-admission that differs from this
request's admission refuses the request (the new list is the next turn's to admit). Without the
guard the host takes the new list into the request, as a tool cache refreshed under a request in
flight does.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import anthropic
import httpx2
import openai
from anthropic.types import MessageParam, TextBlockParam
from mcp import Client, types
from mcp.server import Server
from openai.types.chat import ChatCompletionMessageParam

from toolsurface import (
    FORMATS,
    Binding,
    Message,
    OwnerFact,
    RequestRefused,
    Scenario,
    Settlement,
    Snapshot,
    ToolFormat,
    WebTools,
    capture,
    hidden_by,
)

#: The header that carries the host's request id to the provider gateway.
REQUEST_HEADER = "x-host-request-id"
#: Where the SDKs send; the transport they are given decides what that reaches.
GATEWAY_URL = "http://provider-gateway.invalid"
MODEL = "research-agent-1"
#: The stages before the early check: after recovery and the hooks, before anyone re-validates.
EARLY_STAGES = frozenset({"recover", "hook"})


# -- the providers ----------------------------------------------------------------------------


class Provider(Protocol):
    """How the host shapes its tools and sends a request through one provider's SDK."""

    @property
    def name(self) -> str: ...

    @property
    def tool_format(self) -> str:
        """The `toolsurface.FORMATS` key of the tool dicts the host keeps and sends."""
        ...

    def tool(self, listed: types.Tool) -> dict[str, Any]: ...

    async def send(self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]) -> str: ...


class OpenAIProvider:
    """Chat Completions through `openai.AsyncOpenAI`, tools as function dicts."""

    name: ClassVar[str] = "openai"
    tool_format: ClassVar[str] = "openai"

    def tool(self, listed: types.Tool) -> dict[str, Any]:
        function = {"name": listed.name, "description": listed.description or "", "parameters": listed.input_schema}
        return {"type": "function", "function": function}

    async def send(self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]) -> str:
        client = openai.AsyncOpenAI(api_key="offline", base_url=f"{GATEWAY_URL}/v1", http_client=http, max_retries=0)
        completion = await client.chat.completions.create(
            model=MODEL,
            messages=[_chat_message(message) for message in messages],
            tools=tools if tools else openai.omit,
            extra_headers={REQUEST_HEADER: request},
        )
        return completion.choices[0].message.content or ""


def _chat_message(message: dict[str, Any]) -> ChatCompletionMessageParam:
    # A recorded tool result has no tool-call id to pair with an assistant turn: it goes as a user turn.
    role, content = message.get("role"), message.get("content", "")
    if role == "system":
        return {"role": "system", "content": content}
    if role == "assistant":
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": content}


class AnthropicProvider:
    """Messages through `anthropic.AsyncAnthropic`, tools as `input_schema` dicts."""

    name: ClassVar[str] = "anthropic"
    tool_format: ClassVar[str] = "anthropic"
    max_tokens: ClassVar[int] = 1024

    def tool(self, listed: types.Tool) -> dict[str, Any]:
        return {"name": listed.name, "description": listed.description or "", "input_schema": listed.input_schema}

    async def send(self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]) -> str:
        client = anthropic.AsyncAnthropic(api_key="offline", base_url=GATEWAY_URL, http_client=http, max_retries=0)
        system, turns = anthropic_messages(messages)
        reply = await client.messages.create(
            model=MODEL,
            max_tokens=self.max_tokens,
            system=system if system else anthropic.omit,
            messages=turns,
            tools=tools if tools else anthropic.omit,
            extra_headers={REQUEST_HEADER: request},
        )
        return "".join(block.text for block in reply.content if block.type == "text")


def anthropic_messages(messages: Sequence[dict[str, Any]]) -> tuple[list[TextBlockParam], list[MessageParam]]:
    """The leading system messages as system text blocks (one each, so a capability summary stays
    whole), the rest as user and assistant turns (later system notes and tool results as user turns)."""
    system: list[TextBlockParam] = []
    turns: list[MessageParam] = []
    for message in messages:
        role, content = message.get("role"), message.get("content", "")
        if role == "system" and not turns:
            system.append({"type": "text", "text": content})
        elif role == "assistant":
            turns.append({"role": "assistant", "content": content})
        else:
            turns.append({"role": "user", "content": content})
    return system, turns


PROVIDERS: dict[str, Callable[[], Provider]] = {"openai": OpenAIProvider, "anthropic": AnthropicProvider}


# -- what the host is asked to do, and what it is wired to --------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """One request the host prepares and sends."""

    request: str
    #: The identity trusted owner facts must be bound to.
    binding: Binding
    web_tools: WebTools | None
    #: The run grant: the tool names the owners admitted for this request, in order.
    grant: tuple[str, ...]
    messages: tuple[Message, ...]
    #: The recorded stages (`Scenario.stages`): each has a `kind`, its `point`, and what it did.
    stages: tuple[Any, ...]
    publication: str | None = None

    @classmethod
    def of(cls, scenario: Scenario) -> Turn:
        return cls(
            request=scenario.identity.request,
            binding=scenario.binding,
            web_tools=scenario.contract.web_tools,
            grant=tuple(tool.name for tool in scenario.contract.surface),
            # An entry request opens with the host's capability summary.
            messages=scenario.request_messages,
            stages=scenario.stages,
            publication=scenario.publication.id if scenario.publication else None,
        )


class Ledger(Protocol):
    def reserve(self, request: str) -> Any: ...
    def settle(self, reservation: Any, settlement: Settlement, note: str = "") -> None: ...


#: A stage boundary: the live tools and messages in, the ones to go on with out.
Boundary = Callable[[str, list[Any], list[Any]], tuple[list[Any], list[Any]]]


def no_boundary(point: str, tools: list[Any], messages: list[Any]) -> tuple[list[Any], list[Any]]:
    """What production passes as the boundary: nothing happens between stages."""
    return tools, messages


@dataclass(frozen=True, slots=True)
class Services:
    """What the host is wired to."""

    mcp_server: Server[Any]
    #: The request owner's ledger: one reservation, one settlement.
    ledger: Ledger
    #: The host's owner-fact store, read at each decision.
    facts: Callable[[], Iterable[OwnerFact]]
    #: Where already-publishable bodies are read from (`get(key) -> str | None`).
    publications: Any
    #: The HTTP client both SDKs are given: its transport decides where a request goes.
    http: httpx2.AsyncClient
    boundary: Boundary = no_boundary


@dataclass(slots=True)
class Request:
    """The request being prepared: the live objects each stage hands on."""

    id: str
    tools: list[Any]
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] = field(default_factory=dict)
    #: The host's record of the request, once sealed.
    seal: Snapshot | None = None


class Guard(Protocol):
    """The checks a guard makes; `guard.Guard` is the host's."""

    def admitted(self, tools: list[Any]) -> None: ...
    def readmitted(self, tools: list[Any]) -> None: ...
    def check(self, checkpoint: str, tools: list[Any], messages: list[Any]) -> None: ...
    def fit(self, tools: list[Any], fitted: list[Any], budget: int, max_tools: int | None = None) -> None: ...
    def narrowed(self, tools: list[Any]) -> list[Any]: ...


Hook = Callable[[Request], None]


def trace_annotations(request: Request) -> None:
    """The pre-request hook the recorded hosts register: it annotates, it never touches tools."""
    request.metadata.setdefault("hooks", []).append("trace_annotations")


# -- the host ---------------------------------------------------------------------------------


class McpHost:
    """Prepares and sends one request; `guard=None` is the host with its guard removed."""

    def __init__(self, provider: Provider, services: Services, guard: Guard | None = None, hooks: Sequence[Hook] = ()) -> None:
        self.provider = provider
        self.fmt: ToolFormat = FORMATS[provider.tool_format]
        self.services = services
        self.guard = guard
        self.hooks = tuple(hooks)
        #: The granted tools as MCP listed them, in grant order: what recovery restores from.
        self.admitted: list[dict[str, Any]] = []
        #: The server sent `notifications/tools/list_changed` since the host last listed.
        self.list_changed = False

    async def send(self, turn: Turn) -> str:
        """Prepare the turn's request and send it; settle its reservation exactly once, whatever happens."""
        ledger = self.services.ledger
        reservation = ledger.reserve(turn.request)
        sent = False
        try:
            request = await self.prepare_over_mcp(turn)
            tools = request.tools
            if self.guard is not None:
                # Right before the SDK call, on every path: nothing runs between this and the send.
                self.guard.check("final", tools, request.messages)
                tools = self.guard.narrowed(tools)
            sent = True  # from here on the request may have left: it is settled as dispatched
            reply = await self.provider.send(self.services.http, request.id, tools, request.messages)
        except RequestRefused as refusal:
            ledger.settle(reservation, Settlement.PRE_DISPATCH_REJECTED, f"{refusal.checkpoint} check")
            raise
        except BaseException:
            ledger.settle(reservation, Settlement.DISPATCHED if sent else Settlement.FAILED, "host failed")
            raise
        ledger.settle(reservation, Settlement.DISPATCHED)
        return reply

    async def prepare_over_mcp(self, turn: Turn) -> Request:
        """Prepare the request with an MCP client session open (re-validation may list tools again)."""
        self.list_changed = False
        async with Client(self.services.mcp_server, mode="legacy", message_handler=self.on_server_message) as session:
            try:
                return await self.prepare(turn, session)
            except Exception as error:
                # Raised through the session's task group it would arrive wrapped in an ExceptionGroup.
                failure = error
        raise failure

    async def on_server_message(self, message: Any) -> None:
        """The client session's message handler: a changed tool list is listed again at the next boundary."""
        if isinstance(message, types.ToolListChangedNotification):
            self.list_changed = True

    async def prepare(self, turn: Turn, session: Client) -> Request:
        self.admitted = self.admit(await self.discover(session), turn.grant)
        if self.guard is not None:
            self.guard.admitted(self.admitted)
        request = Request(turn.request, self.project(self.admitted, turn), [m.as_dict() for m in turn.messages])
        early = self.guard  # the guard while its early check is still owed
        for stage in turn.stages:
            if early is not None and stage.kind not in EARLY_STAGES:
                early.check("early", request.tools, request.messages)
                early = None
            await self.run_stage(stage, request, turn, session)
            request.tools, request.messages = self.services.boundary(stage.point, request.tools, request.messages)
            if self.list_changed:
                await self.readmit(request, turn, session)
        if early is not None:  # a pipeline of recovery and hooks only: the early check is still owed
            early.check("early", request.tools, request.messages)
        # The tools are listed once more right before the send, as hosts that list per model call
        # do (the Agents SDK, unless told to cache): a notification may not have arrived yet.
        await self.readmit(request, turn, session)
        return request

    async def readmit(self, request: Request, turn: Turn, session: Client) -> None:
        """List the server's tools again and admit them as at the start of the turn."""
        self.list_changed = False
        readmitted = self.admit(await self.discover(session), turn.grant)
        if self.guard is not None:
            self.guard.readmitted(readmitted)  # refuses unless it gives this request's admission again
        elif readmitted != self.admitted:
            self.admitted = readmitted
            request.tools = self.project(readmitted, turn)

    async def run_stage(self, stage: Any, request: Request, turn: Turn, session: Client) -> None:
        match stage.kind:
            case "recover":
                # Restored from the admission record and the trusted facts; the transcript is history only.
                request.tools = self.project(self.admitted, turn)
                request.metadata["recovered_from"] = stage.receipt
            case "hook":
                for hook in self.hooks:
                    hook(request)
            case "revalidate":
                request.tools = await self.revalidate(stage, request, turn, session)
                request.metadata["revalidated_by"] = turn.binding.connection
            case "context_fit":
                fitted = compress(request.messages, stage.keep_messages or len(request.messages))
                if self.guard is not None:
                    self.guard.fit(request.tools, fitted, stage.budget_tokens or 0, stage.max_tools)
                request.messages = fitted
            case "evidence":
                request.messages = request.messages + [message.as_dict() for message in stage.add_messages]
            case "publication":
                body = self.services.publications.get(turn.publication) if turn.publication else None
                if body is not None:
                    request.messages = request.messages + [{"role": "system", "content": f"Current publication:\n{body}"}]
            case "async_prep":
                await asyncio.sleep(0)  # the preparation is asynchronous: other work may run in between
                request.metadata.update(stage.metadata)
            case "seal":
                request.seal = capture(request.tools, self.fmt)
                request.metadata["sealed"] = True
            case kind:  # a kind this host does not know must not pass as a stage that changed nothing
                raise ValueError(f"a recorded stage this host does not run: {kind!r}")

    async def discover(self, session: Client) -> list[types.Tool]:
        """Every tool the server lists (`tools/list`, page by page), asked of the server, not a cache."""
        listed, cursor = [], None
        while True:
            page = await session.list_tools(cursor=cursor, cache_mode="refresh")
            listed += page.tools
            if (cursor := page.next_cursor) is None:
                return listed

    def admit(self, listed: Sequence[types.Tool], grant: Sequence[str]) -> list[dict[str, Any]]:
        """The granted tools in grant order, in the provider's shape; anything else listed is not admitted."""
        by_name = {tool.name: tool for tool in listed}
        return [self.provider.tool(by_name[name]) for name in grant if name in by_name]

    def hidden(self, turn: Turn) -> frozenset[str]:
        """What the trusted owner facts bound to this request hide, from the host's fact store as it is now."""
        return hidden_by(self.services.facts(), turn.binding, turn.web_tools)

    def project(self, admitted: Sequence[dict[str, Any]], turn: Turn) -> list[dict[str, Any]]:
        """Fresh tool objects of the admitted surface less what is hidden: nothing shared with the record."""
        hidden = self.hidden(turn)
        return [copy.deepcopy(tool) for tool in admitted if self.fmt.get_name(tool) not in hidden]

    async def revalidate(self, stage: Any, request: Request, turn: Turn, session: Client) -> list[Any]:
        """The owners narrow by trusted facts and never add; `rebuild` re-lists from the server."""
        if stage.rebuild:
            return self.project(self.admit(await self.discover(session), turn.grant), turn)
        hidden = self.hidden(turn)
        if any(self.fmt.get_name(tool) in hidden for tool in request.tools):
            return [tool for tool in request.tools if self.fmt.get_name(tool) not in hidden]
        return request.tools


def compress(messages: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """The host's context fitter: the first message, a summary of the middle, and the latest `keep - 2`."""
    if len(messages) <= keep:
        return messages
    dropped = len(messages) - keep + 1
    summary = {"role": "system", "content": f"[{dropped} earlier messages summarised by context fitting]"}
    return [messages[0], summary, *messages[len(messages) - (keep - 2) :]]
