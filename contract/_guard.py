"""The surface guard: one implementation of what keeps a model request's tools the admitted ones.

- **Baseline** — the registered tools captured as JSON bytes when the guard is made, before any
  stage can touch a live tool object: no later edit, in place or not, reaches it.
- **Admission** — where a host selects a model call's tools (a tool selector, a router, middleware
  that brings its own), `admit(tools)` ends admission: the selection must be registered tools,
  each unchanged, each once, in any order, and it is what that model call is held to. A host that
  selects nothing never calls it, and every call is held to the whole baseline.
- **Expected surface** — the baseline less what trusted owner facts bound to this very request
  hide, read from the owners at each decision, never from the request or its messages.
- **Checks** — `check(checkpoint, tools, messages)` compares the tools (count, order, names,
  descriptions, schemas, the format's wire fields; object key order aside) and an entry request's
  capability summary; a host calls it after its hooks (`early`) and right before each model call
  (`final`).
- **Capacity** — tools are never cut to fit: a request over its token budget or its provider's
  limit on tools is an explicit `CapacityExceeded`.
- **Settlement** — every refusal is typed and settled as `pre_dispatch_rejected` with the
  request's owner, once; however else the request ends, it is settled once too.

The guard knows nothing of how it is tested: the host hands each request an `Owner`, which says
who the request is, what its owners' facts say now, and settles it. Framework integrations
(`toolsurface.guard.langchain`, `.pydantic_ai`, `.openai_agents`) are thin layers over this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from toolsurface.contract._json import dumps

from ._canonical import Snapshot, capture
from ._facts import OwnerFact, WebTools, hidden_by
from ._formats import LOGICAL, ToolFormat
from ._owner import Owner, Settlement
from ._refusals import CapacityExceeded, RequestRefused, SummaryRefused, SurfaceRefused

#: The header an entry request's capability summary opens with.
SUMMARY_HEADER = "Host capabilities this turn (access only; nothing has been read or fetched yet):"

#: A list of tools as a host holds it, handed back as it was given.
ToolsT = TypeVar("ToolsT", bound=Sequence[Any])

#: A token estimator: a JSON value (a logical tool dict, a list of message dicts) to its token count.
Estimator = Callable[[Any], int]


def estimate_tokens(value: Any) -> int:
    """A cheap token estimate: about four bytes of JSON per token."""
    return len(dumps(value)) // 4 + 1


@dataclass(frozen=True, slots=True)
class Capacity:
    """What one model call can hold: a token budget and, where the provider has one, a limit on
    tools per request (128 at OpenAI). `estimate` counts tokens; a host passes its own."""

    budget_tokens: int
    max_tools: int | None = None
    estimate: Estimator = estimate_tokens

    def exceeded(self, tools: Sequence[Any], messages: Sequence[Any]) -> CapacityExceeded | None:
        """The capacity result for these tools (logical dicts) and messages, or None when they fit."""
        if self.max_tools is not None and len(tools) > self.max_tools:
            return CapacityExceeded(0, self.budget_tokens, len(tools), max_tools=self.max_tools)
        needed = sum(self.estimate(tool) for tool in tools) + self.estimate(list(messages))
        if needed > self.budget_tokens:
            return CapacityExceeded(needed, self.budget_tokens, len(tools))
        return None


def summary_of(messages: Iterable[Any]) -> str | None:
    """The capability summary messages carry: the first message (a dict or an object with
    `content`) whose text opens with the summary header."""
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
        if isinstance(content, str) and content.startswith(SUMMARY_HEADER):
            return content
    return None


class SurfaceGuard:
    """An agent's guard: its admitted surface and what may narrow it. One serves every request.

    `admitted` is the admitted tools as the host holds them in `fmt` (logical dicts of `name`,
    `description`, `input_schema` by default), or their snapshot; `web_tools` names the tools owner
    facts govern; `summary` is an entry request's capability summary, word for word, or None;
    `capacity` is what one model call can hold (None: the owner's, if it says). A host that holds the
    admitted tools' snapshot already (from recorded descriptors) passes it as `snapshot`: the baseline
    is then that, and the tools are not captured again.

    Each decision is a method of its own (`take_baseline` here; `facts`, `hidden`, `expected`,
    `same`, `check`, `check_summary`, `narrowed`, `readmitted`, `fit`, `settle_refusal` on the
    request), so that the defect matrix can replace exactly one of them and show the runs catch it.
    """

    def __init__(
        self, admitted: Sequence[Any] | Snapshot, fmt: ToolFormat = LOGICAL, *,
        web_tools: WebTools | None = None, summary: str | None = None, capacity: Capacity | None = None,
        snapshot: Snapshot | None = None,
    ) -> None:  # fmt: skip
        self.fmt = fmt
        self.web_tools = web_tools
        self.summary = summary
        self.capacity = capacity
        #: Reads the admitted surface every request of this guard starts from.
        self.read_baseline = self.take_baseline(admitted, snapshot)

    def take_baseline(
        self, admitted: Sequence[Any] | Snapshot, snapshot: Snapshot | None = None
    ) -> Callable[[], Snapshot]:
        """The admitted surface as bytes, captured now (or the snapshot the host holds of it), before
        any stage can touch a live tool object: no later edit, in place or not, reaches it."""
        if snapshot is None:
            snapshot = admitted if isinstance(admitted, Snapshot) else capture(list(admitted), self.fmt)
        baseline = snapshot
        return lambda: baseline

    @property
    def baseline(self) -> Snapshot:
        """The admitted surface."""
        return self.read_baseline()

    def request(self, owner: Owner) -> GuardedRequest:
        """The guard of one request, from admission to its settlement."""
        return GuardedRequest(self, owner)


class GuardedRequest:
    """One request's checks and its single settlement."""

    def __init__(self, guard: SurfaceGuard, owner: Owner) -> None:
        self.guard = guard
        self.owner = owner
        self.fmt = guard.fmt
        #: Reads the registered surface this request is held to: the guard's, never the request's.
        self.read_baseline = guard.read_baseline
        #: What the model call in progress admitted (`admit`); None: every registered tool.
        self.admission: Snapshot | None = None
        #: Whether a model call went out: a failure after one is settled as dispatched.
        self.dispatched = False
        self.settled = False
        #: The refusal that ended the request: it stands, so a retry of the model call sends nothing.
        self.refusal: RequestRefused | None = None
        #: What facts govern, the entry summary and the capacity this request is held to: the
        #: guard's, else its owner's.
        self.web_tools: WebTools | None = guard.web_tools or getattr(owner, "web_tools", None)
        self.summary: str | None = guard.summary if guard.summary is not None else getattr(owner, "summary", None)
        self.capacity: Capacity | None = guard.capacity or getattr(owner, "capacity", None)
        #: Each set of hidden tools read since the live tools were last narrowed, starting with
        #: the one in force as the request is made (a host may narrow by the same rule itself):
        #: until they are narrowed again, the request may still be as any of them left it (a fact
        #: may arrive mid-request).
        self._seen: set[frozenset[str]] = set()
        self.hidden()

    def facts(self) -> Iterable[OwnerFact]:
        """The owner facts as recorded now; `hidden` decides which it trusts."""
        return self.owner.facts()

    def hidden(self) -> frozenset[str]:
        """The tools trusted owner facts bound to this request hide, read now."""
        hidden = hidden_by(self.facts(), self.owner.binding, self.web_tools)
        self._seen.add(hidden)
        return hidden

    def admitted(self) -> Snapshot:
        """The surface the model call in progress was admitted with: its selection, else the baseline."""
        return self.read_baseline() if self.admission is None else self.admission

    def expected(self) -> Snapshot:
        """The surface in force: the admitted surface less what trusted facts hide now."""
        return self.admitted().without(self.hidden())

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        """Parity: count, order, names, full descriptions, input schemas and the wire fields the
        format carries (object key order aside)."""
        return expected == actual

    def check(self, checkpoint: str, tools: Sequence[Any], messages: Iterable[Any] = ()) -> None:
        """Refuse (settled, then raised) unless `tools` are the expected surface and an entry
        request's messages carry the contract's summary word for word. A request refused before is
        refused again: a middleware that retries the model call, or falls back to another model,
        after a refusal does not send it."""
        if self.refusal is not None:
            raise self.refusal
        expected, actual = self.expected(), capture(list(tools), self.fmt)
        if not self.same(expected, actual) and not any(
            self.same(self.admitted().without(hidden), actual) for hidden in self._seen
        ):
            self.refuse(SurfaceRefused(checkpoint, expected, actual))
        self.check_summary(checkpoint, messages)

    def check_summary(self, checkpoint: str, messages: Iterable[Any]) -> None:
        """An entry request's capability summary must be the contract's, word for word."""
        if (summary := self.summary) is not None and (stated := summary_of(messages)) != summary:
            self.refuse(SummaryRefused(checkpoint, summary, stated))

    def admit(self, tools: Sequence[Any], checkpoint: str = "admission") -> None:
        """End admission for the next model call: `tools` are its selection, held to from here on.
        A selection may leave registered tools out and put them in any order; a tool it adds,
        renames or edits, or one it holds twice, is refused (settled, then raised)."""
        selection = capture(list(tools), self.fmt)
        registered = self.read_baseline().selected(names := selection.names())
        if not self.same(registered, selection) or len(set(names)) != len(names):
            self.refuse(SurfaceRefused(checkpoint, registered, selection))
        self.admission = selection

    def narrowed(self, tools: Sequence[Any], name: Callable[[Any], str] | None = None) -> list[Any]:
        """Legitimate narrowing, when the request is made and after each check: the tools less what
        trusted facts hide now. It never adds one, and from here on the request is held to what it
        leaves."""
        hidden = self.hidden()
        self._seen = {hidden}
        name_of = name or self.fmt.get_name
        return [tool for tool in tools if name_of(tool) not in hidden]

    def readmitted(self, tools: Sequence[Any], checkpoint: str = "re-admission") -> None:
        """The tool source's list changed mid-request: admitted again, it must give this request's
        admission, or the request is refused. Nothing new is taken mid-request."""
        admitted = self.read_baseline()
        if (readmitted := capture(list(tools), self.fmt)) != admitted:
            self.refuse(SurfaceRefused(checkpoint, admitted, readmitted))

    def fit(self, tools: ToolsT, messages: Sequence[Any], capacity: Capacity | None = None) -> ToolsT:
        """The tools that go out, which are `tools` whole: where they and the messages cannot fit
        `capacity` (default: the request's), the request is refused with an explicit capacity
        result, never cut. Without a capacity there is nothing to fit."""
        if (capacity := capacity or self.capacity) is None:
            return tools
        if (result := capacity.exceeded([self.fmt.logical(tool) for tool in tools], messages)) is not None:
            self.refuse(result)
        return tools

    def fit_count(self, tools: Sequence[Any]) -> None:
        """Refuse with an explicit capacity result where there are more tools than the model call
        takes (`Capacity.max_tools`): known as soon as the tools are, whatever later fits the messages."""
        capacity = self.capacity
        if capacity is not None and capacity.max_tools is not None and len(tools) > capacity.max_tools:
            self.refuse(CapacityExceeded(0, capacity.budget_tokens, len(tools), max_tools=capacity.max_tools))

    def sent(self) -> None:
        """A model call of this request went out."""
        self.dispatched = True

    def refuse(self, refusal: RequestRefused) -> NoReturn:
        """Settle the request as refused before dispatch, and raise the typed refusal."""
        self.settle_refusal(refusal)
        self.refusal = self.refusal or refusal
        raise refusal

    def settle_refusal(self, refusal: RequestRefused) -> None:
        """Settle a refusal with the request's owner: `pre_dispatch_rejected`, once."""
        self.settle(Settlement.PRE_DISPATCH_REJECTED, f"{refusal.checkpoint} check")

    def settle(self, settlement: Settlement, note: str = "") -> None:
        """Settle with the owner, the first time only."""
        if not self.settled:
            self.settled = True
            self.owner.settle(settlement, note)

    @contextlib.contextmanager
    def settling(self, refusal: Callable[[Exception], RequestRefused | None] | None = None) -> Iterator[GuardedRequest]:
        """Settle the request once however the code under `with` ends: refused (a `RequestRefused`,
        or an error `refusal` names as the framework's own refusal before a model call),
        dispatched, or failed. A request that made no model call is settled `failed`."""
        try:
            yield self
        except RequestRefused as refused:
            if not self.settled:
                self.settle_refusal(refused)
            raise
        except Exception as error:
            if (named := None if refusal is None else refusal(error)) is not None:
                self.settle(Settlement.PRE_DISPATCH_REJECTED, str(named))
                raise named from error
            self.settle(
                Settlement.DISPATCHED if self.dispatched else Settlement.FAILED, f"run failed: {type(error).__name__}"
            )
            raise
        self.settle(
            Settlement.DISPATCHED if self.dispatched else Settlement.FAILED, "" if self.dispatched else "no model call"
        )
