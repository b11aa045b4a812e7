"""TS106 diagnostic-authority: diagnostic fields of tool results decide which tools are hidden."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Match, Needs, Place, Rule, Tree, assigned, dotted, is_tools, shown
from .._types import ScanConfig

#: Names a function collects tools to hide into.
_HIDING = ("hidden", "hide", "disabled", "disabled_tools", "unavailable", "blocked")


class DiagnosticAuthority(Rule):
    """A function that reads quota, budget, deadline or provider-attempt fields out of messages or
    tool results and hides tools on their word: diagnostics are evidence, never availability."""

    id = "TS106"
    name = "diagnostic-authority"
    message = "hide a tool only on a typed owner fact bound to this request's identity, never on a diagnostic field"
    valid = (
        """
def available(contract, facts, identity):
    hidden = {name for fact in facts if fact.bound_to == identity for name in fact.hides}
    return [tool for tool in contract.admitted if tool.name not in hidden]
""",
        """
def summarise(messages):
    return [m["content"] for m in messages if "deadline" in m["content"]]
""",
        # A filter of the tool list on the owner's facts; the history is only logged.
        """
def usable(tools, history, facts):
    log.info("quota and deadline facts checked over %d turns", len(history))
    return [tool for tool in tools if tool.name not in facts.hidden]
""",
    )
    invalid = (
        # The filtered list stored back under the state's tool key.
        Invalid(
            """
def before_model(self, state):
    late = any(r.payload.get("deadline_exceeded") for r in state["tool_results"])
    if late:
        state["tools"] = [t for t in state["tools"] if t.name not in self.slow]
    return state
""",
            line=3,
        ),
        Invalid(
            """
def refresh(request):
    for message in request.messages:
        if message["role"] == "tool" and "quota_exhausted" in message["content"]:
            request.tools = [t for t in request.tools if t["name"] != "market__web_search"]
""",
            line=4,
            flow=(
                (3, "tool results `request.messages`"),
                (4, 'diagnostic read `"quota_exhausted" in message["content"]`, tools hidden on its word'),
            ),
        ),
        Invalid(
            """
def disabled_tools(results):
    disabled = set()
    for result in results:
        if result.get("diagnostics", {}).get("provider_attempt", 0) >= 3:
            disabled.add("market__web_search")
    return disabled
""",
            line=5,
        ),
        # A flag set from the history, then the tool list filtered into what the function returns.
        Invalid(
            """
def usable(tools, history):
    spent = False
    for turn in history:
        if turn.meta.get("budget_exhausted"):
            spent = True
    if spent:
        return [tool for tool in tools if tool.name not in PAID]
    return tools
""",
            line=5,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (config.diagnostic_words, config.message_words)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        for function in tree.functions():
            if not tree.mentions(function, config.message_words) or not _hides(tree, function, config):
                continue
            for node in tree.findall(function.body, cst.Comparison, cst.Call):
                if _reads_diagnostic(tree, node, config):
                    yield Match(node, f"diagnostic read {shown(node)}, tools hidden on its word", _results(tree, function, config))
                    break


def _results(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> tuple[Place, ...]:
    """Where the messages or tool results come in: the list a loop walks, else a parameter."""
    for loop in tree.findall(function.body, cst.For):
        if tree.mentions(loop.iter, config.message_words):
            return ((loop.iter, f"tool results {shown(loop.iter)}"),)
    for param in tree.findall(function.params, cst.Param):
        if tree.mentions(param.name, config.message_words):
            return ((param, f"parameter `{param.name.value}`"),)
    return ()


def _hides(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> bool:
    """Whether the function narrows a tool list, filters one into what it returns or assigns, or
    collects names to hide."""
    for assign in tree.findall(function.body, cst.Assign, cst.AugAssign):
        targets = assigned(assign)
        if any(is_tools(t, config) or tree.mentions(t, _HIDING) for t in targets):
            return True
    filtering = (cst.ListComp, cst.SetComp, cst.GeneratorExp)
    if any(comp.for_in.ifs and is_tools(comp.for_in.iter, config) for comp in tree.findall(function.body, *filtering)):
        return True
    return any(
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("add", "update", "remove")
        and tree.mentions(call.func.value, _HIDING)
        for call in tree.calls(function.body)
    )


def _reads_diagnostic(tree: Tree, node: cst.CSTNode, config: ScanConfig) -> bool:
    """A comparison or `.get()` that names a diagnostic field in a string."""
    if isinstance(node, cst.Call) and not dotted(node.func).endswith(".get"):
        return False
    return any(word in s.lower() for s in tree.strings(node) for word in config.diagnostic_words)
