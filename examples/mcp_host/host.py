"""A small MCP host: discover tools over MCP, admit what the run grants, prepare one request
through its stages, and send it with the OpenAI (or Anthropic) Python SDK; when the model asks
for tools, run them and send their results back in the next model call of the same request.

The stages are the ones a request pipeline records (the `kind` of each stage in a scenario
file, run in recorded order); each one hands its live request on through
`boundary(point, tools, messages)`, which is `ports.inject` under toolsurface and nothing at all
in production. The guard is toolsurface's public one (`toolsurface.guard.SurfaceGuard`), made per
request right after admission; `McpHost(..., guarded=False)` is the same host without it.

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

A reply that calls tools goes on the same request: the host runs each tool call, appends the
model's call and the results to the messages, runs the stages recorded for the next model call
(each boundary again `boundary(point, ...)`), checks again and sends again, until a reply calls
no tools. The request's reservation is settled once, after its last model call.

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
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import anthropic
import httpx2
import openai
from anthropic.types import (
    MessageParam,
    TextBlockParam,
    ToolResultBlockParam,
    ToolUseBlockParam,
)
from mcp import Client, types
from mcp.server import Server
from openai.types.chat import (
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
)

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
from toolsurface.guard import Capacity, GuardedRequest, SurfaceGuard

#: The header that carries the host's request id to the provider gateway.
REQUEST_HEADER = "x-host-request-id"
#: Where the SDKs send; the transport they are given decides what that reaches.
GATEWAY_URL = "http://provider-gateway.invalid"
MODEL = "research-agent-1"
#: The stages before the early check: after recovery and the hooks, before anyone re-validates.
EARLY_STAGES = frozenset({"recover", "hook"})
#: A request's model calls, at most: a model that keeps calling tools must not keep the request open.
MAX_MODEL_CALLS = 16


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call a model's reply made, in the host's own terms whichever SDK carried it."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reply:
    """What a model call answered: its text, and the tools it asks the host to run first."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()


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

    async def send(
        self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]
    ) -> Reply: ...


class OpenAIProvider:
    """Chat Completions through `openai.AsyncOpenAI`, tools as function dicts."""

    name: ClassVar[str] = "openai"
    tool_format: ClassVar[str] = "openai"

    def tool(self, listed: types.Tool) -> dict[str, Any]:
        function = {"name": listed.name, "description": listed.description or "", "parameters": listed.input_schema}
        return {"type": "function", "function": function}

    async def send(
        self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]
    ) -> Reply:
        client = openai.AsyncOpenAI(api_key="offline", base_url=f"{GATEWAY_URL}/v1", http_client=http, max_retries=0)
        completion = await client.chat.completions.create(
            model=MODEL,
            messages=[_chat_message(message) for message in messages],
            tools=tools if tools else openai.omit,
            extra_headers={REQUEST_HEADER: request},
        )
        message = completion.choices[0].message
        calls = tuple(
            ToolCall(call.id, call.function.name, json.loads(call.function.arguments or "{}"))
            for call in message.tool_calls or ()
            if call.type == "function"
        )
        return Reply(message.content or "", calls)


def _chat_message(message: dict[str, Any]) -> ChatCompletionMessageParam:
    # A recorded tool result has no tool-call id to pair with an assistant turn: it goes as a user turn.
    role, content = message.get("role"), message.get("content", "")
    if role == "system":
        return {"role": "system", "content": content}
    if role == "assistant" and message.get("tool_calls"):
        calls: list[ChatCompletionMessageFunctionToolCallParam] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in message["tool_calls"]
        ]
        return {"role": "assistant", "content": content or None, "tool_calls": calls}
    if role == "assistant":
        return {"role": "assistant", "content": content}
    if role == "tool" and "tool_call_id" in message:
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "content": content}
    return {"role": "user", "content": content}


class AnthropicProvider:
    """Messages through `anthropic.AsyncAnthropic`, tools as `input_schema` dicts."""

    name: ClassVar[str] = "anthropic"
    tool_format: ClassVar[str] = "anthropic"
    max_tokens: ClassVar[int] = 1024

    def tool(self, listed: types.Tool) -> dict[str, Any]:
        return {"name": listed.name, "description": listed.description or "", "input_schema": listed.input_schema}

    async def send(
        self, http: httpx2.AsyncClient, request: str, tools: list[Any], messages: list[dict[str, Any]]
    ) -> Reply:
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
        text = "".join(block.text for block in reply.content if block.type == "text")
        calls = tuple(
            ToolCall(block.id, block.name, dict(block.input)) for block in reply.content if block.type == "tool_use"
        )
        return Reply(text, calls)


def anthropic_messages(messages: Sequence[dict[str, Any]]) -> tuple[list[TextBlockParam], list[MessageParam]]:
    """The leading system messages as system text blocks (one each, so a capability summary stays
    whole), the rest as user and assistant turns (later system notes and recorded tool results as
    user turns). The model's tool calls are `tool_use` blocks, and the results answering them one
    user turn of `tool_result` blocks, as the Messages API pairs them."""
    system: list[TextBlockParam] = []
    turns: list[MessageParam] = []
    results: list[ToolResultBlockParam] | None = None  # the latest turn's, while tool results follow one another
    for message in messages:
        role, content = message.get("role"), message.get("content", "")
        if role == "tool" and "tool_call_id" in message:
            if results is None:
                results = []
                turns.append({"role": "user", "content": results})
            results.append({"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": content})
            continue
        results = None
        if role == "system" and not turns:
            system.append({"type": "text", "text": content})
        elif role == "assistant" and message.get("tool_calls"):
            blocks: list[TextBlockParam | ToolUseBlockParam] = [{"type": "text", "text": content}] if content else []
            blocks += [
                {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["arguments"]}
                for call in message["tool_calls"]
            ]
            turns.append({"role": "assistant", "content": blocks})
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
    #: An entry request's capability summary, word for word; None outside entry mode.
    summary: str | None = None
    #: The stages recorded before each later model call of the request (`Scenario.stages_of(2)` on).
    later_stages: tuple[tuple[Any, ...], ...] = ()

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
            summary=scenario.contract.summary,
            later_stages=tuple(scenario.stages_of(call) for call in range(2, scenario.model_calls + 1)),
        )

    def stages_of(self, call: int) -> tuple[Any, ...]:
        """The stages run before the `call`-th model call; past the recorded ones, the last recorded again."""
        if call == 1:
            return self.stages
        later = self.later_stages or (self.stages,)
        return later[min(call - 2, len(later) - 1)]


class Ledger(Protocol):
    def reserve(self, request: str) -> Any: ...
    def settle(self, reservation: Any, settlement: Settlement, note: str = "") -> None: ...


class Owner:
    """The request's owner as the guard sees it (`toolsurface.guard.Owner`): its identity, the
    host's fact store, and its reservation in the owner's ledger, settled once."""

    def __init__(self, turn: Turn, services: Services) -> None:
        self.binding = turn.binding
        self.facts = services.facts
        self._ledger = services.ledger
        self._reservation = self._ledger.reserve(turn.request)
        self.settled = False

    def settle(self, settlement: Settlement, note: str = "") -> None:
        if not self.settled:
            self.settled = True
            self._ledger.settle(self._reservation, settlement, note)


#: A stage boundary: the live tools and messages in, the ones to go on with out.
Boundary = Callable[[str, list[Any], list[Any]], tuple[list[Any], list[Any]]]
#: Runs one tool call of a model's reply and gives its result as text.
ToolRunner = Callable[[ToolCall], Awaitable[str]]


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
    #: Where the model's tool calls run: in production, `call_tool` on the MCP server that listed the tool.
    run_tool: ToolRunner
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


Hook = Callable[[Request], None]


def trace_annotations(request: Request) -> None:
    """The pre-request hook the recorded hosts register: it annotates, it never touches tools."""
    request.metadata.setdefault("hooks", []).append("trace_annotations")


# -- the host ---------------------------------------------------------------------------------


class McpHost:
    """Prepares and sends one request, in as many model calls as the model's tool calls take;
    `guarded=False` is the host with its guard removed."""

    def __init__(
        self, provider: Provider, services: Services, guarded: bool = True, hooks: Sequence[Hook] = ()
    ) -> None:
        self.provider = provider
        self.fmt: ToolFormat = FORMATS[provider.tool_format]
        self.services = services
        self.guarded = guarded
        #: The current request's guard, from its admission on; None without the guard.
        self.guard: GuardedRequest | None = None
        self.hooks = tuple(hooks)
        #: The granted tools as MCP listed them, in grant order: what recovery restores from.
        self.admitted: list[dict[str, Any]] = []
        #: The server sent `notifications/tools/list_changed` since the host last listed.
        self.list_changed = False
        #: The model calls of the current request sent so far (or on their way).
        self.model_calls = 0

    async def send(self, turn: Turn) -> str:
        """Prepare the turn's request and send it, model call after model call while the model asks
        for tools; settle its reservation exactly once, at the end, whatever happens."""
        owner = Owner(turn, self.services)
        self.model_calls = 0
        try:
            reply = await self.converse_over_mcp(turn, owner)
        except RequestRefused as refusal:
            # Any model call refused refuses the request, even after earlier calls went out (the
            # guard has settled it already: the owner settles once).
            owner.settle(Settlement.PRE_DISPATCH_REJECTED, f"{refusal.checkpoint} check")
            raise
        except BaseException:
            owner.settle(Settlement.DISPATCHED if self.model_calls else Settlement.FAILED, "host failed")
            raise
        owner.settle(Settlement.DISPATCHED)
        return reply

    async def converse_over_mcp(self, turn: Turn, owner: Owner) -> str:
        """Run the request with an MCP client session open: re-validation may list tools again, and
        every model call lists them once more before it is sent."""
        self.list_changed = False
        async with Client(self.services.mcp_server, mode="legacy", message_handler=self.on_server_message) as session:
            try:
                return await self.converse(turn, owner, session)
            except Exception as error:
                # Raised through the session's task group it would arrive wrapped in an ExceptionGroup.
                failure = error
        raise failure

    async def on_server_message(self, message: Any) -> None:
        """The client session's message handler: a changed tool list is listed again at the next boundary."""
        if isinstance(message, types.ToolListChangedNotification):
            self.list_changed = True

    async def converse(self, turn: Turn, owner: Owner, session: Client) -> str:
        """Admit the tools once, then prepare and send each model call of the request."""
        self.admitted = self.admit(await self.discover(session), turn.grant)
        if self.guarded:
            # The baseline: the admitted tools as bytes, before any stage can touch a live one.
            guard = SurfaceGuard(self.admitted, self.fmt, web_tools=turn.web_tools, summary=turn.summary)
            self.guard = guard.request(owner)
        request = Request(turn.request, self.project(self.admitted, turn), [m.as_dict() for m in turn.messages])
        while self.model_calls < MAX_MODEL_CALLS:
            await self.prepare(request, turn.stages_of(self.model_calls + 1), turn, session)
            reply = await self.dispatch(request)
            if not reply.tool_calls:
                return reply.text
            # The model asked for tools: their results go back in the next model call of this same
            # request, which the stages prepare again and the guard checks again.
            request.messages = request.messages + await self.answered(reply)
        raise RuntimeError(f"the model still called tools after {MAX_MODEL_CALLS} model calls")

    async def prepare(self, request: Request, stages: tuple[Any, ...], turn: Turn, session: Client) -> None:
        """Run one model call's stages over the live request, handing it on at each boundary."""
        early = self.guard  # the guard while its early check is still owed
        for stage in stages:
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

    async def dispatch(self, request: Request) -> Reply:
        """One model call: the guard's final check, then the SDK call, with nothing in between."""
        if self.guard is not None:
            self.guard.check("final", request.tools, request.messages)
            # What a trusted fact hides now goes from this call on: the next call starts from here.
            request.tools = self.guard.narrowed(request.tools)
        self.model_calls += 1  # from here on the request may have left: it is settled as dispatched
        return await self.provider.send(self.services.http, request.id, request.tools, request.messages)

    async def answered(self, reply: Reply) -> list[dict[str, Any]]:
        """The messages that answer a reply's tool calls: the model's calls, then each tool's result, in order."""
        calls = [{"id": call.id, "name": call.name, "arguments": call.arguments} for call in reply.tool_calls]
        results = [
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": await self.services.run_tool(call)}
            for call in reply.tool_calls
        ]
        return [{"role": "assistant", "content": reply.text, "tool_calls": calls}, *results]

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
                    self.guard.fit(request.tools, fitted, Capacity(stage.budget_tokens or 0, stage.max_tools))
                request.messages = fitted
            case "evidence":
                request.messages = request.messages + [message.as_dict() for message in stage.add_messages]
            case "publication":
                body = self.services.publications.get(turn.publication) if turn.publication else None
                if body is not None:
                    request.messages = [
                        *request.messages,
                        {"role": "system", "content": f"Current publication:\n{body}"},
                    ]
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
