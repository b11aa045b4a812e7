"""Availability mutators: who may narrow the surface.

Only a trusted owner fact hides a tool. A stage that hides web search on a diagnostic's word, or
hides web read on a budget fact that keeps it, or shows a tool a trusted fact hid, must be
refused. A tool result whose diagnostics look like an exhausted budget must change nothing: the
request goes out with its full expected surface. Facts recorded into the feed, forged or
trusted, are `_facts`' mutators.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import orjson

from toolsurface.contract._facts import FactKind, OwnerFact
from toolsurface.scenarios import Scenario

from ._aims import Diagnostic, LooksLike, Tool
from ._base import Edit, Example, Kind, Must, MutationNotApplicable, Mutator, one_of
from ._delete import without
from ._fixtures import PROFILE, SEARCH, WEB_READ, WEB_SEARCH, WEB_TOOLS
from ._testing import BINDING

#: What an unrelated tool's result says in its diagnostics, by what it looks like.
DIAGNOSTICS: dict[LooksLike, dict[str, Any]] = {
    LooksLike.BUDGET: {"upstream": {"provider": "refdata", "quota": {"remaining": 0, "exhausted": True}}},
    LooksLike.DEADLINE: {"upstream": {"provider": "refdata", "web_deadline_ms": 0, "deadline_exceeded": True}},
    LooksLike.PROVIDER_ATTEMPT: {
        "upstream": {"provider": "refdata", "provider_attempt": 3, "max_provider_attempts": 3}
    },
}

_BUDGET = OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", BINDING, ("src_1",))


def diagnostic_result(scenario: Scenario, looks_like: LooksLike) -> dict[str, str]:
    """A tool-result message from a tool unrelated to the web, carrying look-alike diagnostics."""
    web = scenario.contract.web_tools
    unrelated = [t.name for t in (*scenario.contract.admitted, *scenario.contract.admitted_elsewhere)]
    source = next((name for name in unrelated if web is None or name not in (web.search, web.read)), PROFILE["name"])
    body = {"symbol": "VWRL.L", "status": "ok", "diagnostics": DIAGNOSTICS[looks_like]}
    return {"role": "tool", "content": f"[{source}] {orjson.dumps(body).decode()}"}


def _shown(scenario: Scenario) -> set[str]:
    return {tool.name for tool in scenario.surface}


class HideSearch(Mutator):
    """Web search dropped by a stage that cites a diagnostic as its reason, with no trusted fact."""

    kind = Kind.AVAILABILITY
    variant = "hide_search"
    examples = (
        Example(
            aim=Tool("market__web_search"),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            messages_after=(
                {
                    "role": "tool",
                    "content": '[market__search_instruments] {"symbol":"VWRL.L","status":"ok","diagnostics":'
                    '{"upstream":{"provider":"refdata","quota":{"remaining":0,"exhausted":true}}}}',
                },
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        web = scenario.contract.web_tools
        return (Tool(web.search),) if web and web.search in _shown(scenario) else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        tools, _ = without(edit, self.aim_of(edit, Tool).name)
        _, messages = edit.with_messages([*edit.messages, diagnostic_result(edit.scenario, LooksLike.BUDGET)])
        return tools, messages


class HideRead(Mutator):
    """Web read dropped as if the exhausted search budget closed it too, though source refs remain."""

    kind = Kind.AVAILABILITY
    variant = "hide_read"
    examples = (
        Example(
            aim=Tool("market__web_read"),
            admitted=(SEARCH, WEB_SEARCH, WEB_READ),
            before=(SEARCH, WEB_READ),
            after=(SEARCH,),
            web_tools=WEB_TOOLS,
            facts=(_BUDGET,),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        web, shown = scenario.contract.web_tools, _shown(scenario)
        # Only where a trusted budget fact hid search and kept read: elsewhere it is a plain delete.
        if web is None or web.search in shown or web.read not in shown:
            return ()
        return (Tool(web.read),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return without(edit, self.aim_of(edit, Tool).name)


class Reveal(Mutator):
    """A tool a trusted owner fact hid, put back where the admitted order has it."""

    kind = Kind.AVAILABILITY
    variant = "reveal"
    examples = (
        Example(
            aim=Tool("market__web_search"),
            admitted=(SEARCH, WEB_SEARCH, WEB_READ),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            facts=(_BUDGET,),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        shown = _shown(scenario)
        return one_of(rng, [Tool(tool.name) for tool in scenario.contract.surface if tool.name not in shown])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, Tool)
        admitted = edit.scenario.contract.surface
        index = next((i for i, tool in enumerate(admitted) if tool.name == aim.name), None)
        if index is None:
            raise ValueError(f"{self.key()}: {aim!r} names no admitted tool of the scenario")
        shown = _shown(edit.scenario)
        position = sum(1 for tool in admitted[:index] if tool.name in shown)
        if position > len(edit.tools):
            raise MutationNotApplicable(f"position {position} is past the {len(edit.tools)} live tools")
        tools = list(edit.tools)
        tools.insert(position, edit.fmt.build(admitted[index]))
        return edit.with_tools(tools)


class Spoof(Mutator):
    """An unrelated tool result whose diagnostics look like an exhausted budget, a web deadline or
    a spent provider attempt: evidence at most, never availability."""

    kind = Kind.AVAILABILITY
    variant = "spoof"
    must = Must.DISPATCH
    examples = (
        Example(
            aim=Diagnostic(LooksLike.DEADLINE),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            messages_after=(
                {
                    "role": "tool",
                    "content": '[market__search_instruments] {"symbol":"VWRL.L","status":"ok","diagnostics":'
                    '{"upstream":{"provider":"refdata","web_deadline_ms":0,"deadline_exceeded":true}}}',
                },
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Diagnostic]:
        web = scenario.contract.web_tools
        return tuple(map(Diagnostic, DIAGNOSTICS)) if web and {web.search, web.read} & _shown(scenario) else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        looks_like = self.aim_of(edit, Diagnostic).looks_like
        return edit.with_messages([*edit.messages, diagnostic_result(edit.scenario, looks_like)])


#: Forged and trusted facts recorded mid-run are in `_facts`, planned right after these.
MUTATORS: tuple[Mutator, ...] = (HideSearch(), HideRead(), Reveal(), Spoof())
