"""The host's guard: the request it sends carries exactly the admitted tools.

- **Baseline** — a snapshot of the admitted surface taken right after admission, as JSON bytes
  (`toolsurface.capture`): no later edit of a live tool, in place or not, can reach it.
- **Expected surface** — the baseline less what the trusted owner facts bound to this request
  hide, read from the fact store at each check; never read from the request or its messages.
- **Checks** — `early` after recovery and the hooks (before re-validation can rebuild the tools
  and launder an edit), `final` right before the SDK call; each compares the tools (parity: order,
  names, descriptions, schemas, object key order aside) and an entry request's capability summary.
- **Re-admission** — when the MCP server's list changes mid-request, the host lists it again and
  the guard compares what it admits with the baseline: any difference refuses the request.
- **Capacity** — a request whose tools and fitted messages exceed the budget is a
  `CapacityExceeded`, never a shorter tool list.

Every refusal is typed (`SurfaceRefused`, `SummaryRefused`, `CapacityExceeded`); the host settles
it as `pre_dispatch_rejected` on the request's own ledger.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from toolsurface import (
    Binding,
    CapacityExceeded,
    OwnerFact,
    Ports,
    Scenario,
    Snapshot,
    SummaryRefused,
    SurfaceRefused,
    ToolFormat,
    WebTools,
    capture,
    hidden_by,
)


def estimate_tokens(value: Any) -> int:
    """A cheap token estimate: about four bytes of compact JSON per token."""
    try:
        return len(orjson.dumps(value)) // 4 + 1
    except TypeError:  # orjson stops at 64-bit integers
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()) // 4 + 1


def stated_summary(messages: list[Any], summary: str) -> str | None:
    """The capability summary the messages carry: the first one that opens with the summary's header line."""
    header = summary.partition("\n")[0]
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and content.startswith(header):
            return content
    return None


class Guard:
    """One request's guard; `Guard.for_run` wires it to a scenario's owners."""

    def __init__(
        self,
        fmt: ToolFormat,
        facts: Callable[[], Iterable[OwnerFact]],
        binding: Binding,
        web_tools: WebTools | None,
        summary: str | None,
    ) -> None:
        self.fmt = fmt
        self.facts = facts
        self.binding = binding
        self.web_tools = web_tools
        #: An entry request's capability summary, word for word; None outside entry mode.
        self.summary = summary
        self.baseline: Snapshot | None = None
        #: Each set of hidden tools read so far: the request may still be as any of them left it.
        self.seen_hidden: list[frozenset[str]] = []

    @classmethod
    def for_run(cls, scenario: Scenario, ports: Ports) -> Guard:
        """A guard reading the harness-owned owner-fact feed (a forged fact is recorded there mid-run)."""
        contract = scenario.contract
        return cls(ports.fmt, ports.facts.current, scenario.binding, contract.web_tools, contract.summary)

    def admitted(self, tools: list[Any]) -> None:
        """Take the baseline: called once, right after admission, before any stage runs."""
        if self.baseline is not None:
            raise RuntimeError("the baseline is taken once per request")
        self.baseline = capture(tools, self.fmt)
        self.hidden()  # the facts in force at admission, which the projection narrows by

    def readmitted(self, tools: list[Any]) -> None:
        """The server's list changed: admitted again, it must give this request's admission, or the
        request is refused. Nothing the server changed is taken mid-request; the next turn admits it."""
        if self.baseline is None:
            raise RuntimeError("no baseline: admission never reported its tools to the guard")
        if (readmitted := capture(tools, self.fmt)) != self.baseline:
            raise SurfaceRefused("re-admission", self.baseline, readmitted)

    def hidden(self) -> frozenset[str]:
        hidden = hidden_by(self.facts(), self.binding, self.web_tools)
        if not self.seen_hidden or self.seen_hidden[-1] != hidden:
            self.seen_hidden.append(hidden)
        return hidden

    def narrowed(self, tools: list[Any]) -> list[Any]:
        """Owner narrowing after the final check: the checked tools less what trusted facts hide now
        (a fact may arrive after the owners' re-validation). It never adds one."""
        hidden = self.hidden()
        return [tool for tool in tools if self.fmt.get_name(tool) not in hidden]

    def expected(self) -> Snapshot:
        if self.baseline is None:
            raise RuntimeError("no baseline: admission never reported its tools to the guard")
        return self.baseline.without(self.hidden())

    def check(self, checkpoint: str, tools: list[Any], messages: list[Any]) -> None:
        expected, actual = self.expected(), capture(tools, self.fmt)
        # The surface as facts read earlier left it is in force until the next narrowing.
        assert self.baseline is not None
        if actual != expected and not any(actual == self.baseline.without(hidden) for hidden in self.seen_hidden):
            raise SurfaceRefused(checkpoint, expected, actual)
        if self.summary is not None and (stated := stated_summary(messages, self.summary)) != self.summary:
            raise SummaryRefused(checkpoint, self.summary, stated)

    def fit(self, tools: list[Any], fitted: list[Any], budget: int, max_tools: int | None = None) -> None:
        """Tools are never cut to fit: over budget, or over the provider's limit on tools per
        request, is an explicit capacity result."""
        if max_tools is not None and len(tools) > max_tools:
            raise CapacityExceeded(0, budget, len(tools), max_tools=max_tools)
        needed = sum(estimate_tokens(self.fmt.logical(tool)) for tool in tools) + estimate_tokens(fitted)
        if needed > budget:
            raise CapacityExceeded(needed, budget, len(tools))
