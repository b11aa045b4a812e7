"""TS106 diagnostic-authority: diagnostic fields of tool results decide which tools are hidden."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._outline import Outline, Unit
from .._rule import (
    Invalid,
    Match,
    Mentions,
    Needs,
    Place,
    Rule,
    Tree,
    assigned,
    dotted,
    is_tools,
    key_of,
    named,
    shown,
)
from .._types import ScanConfig
from .._values import bound

#: Names a function collects tools to hide into.
_HIDING = ("hidden", "hide", "disabled", "disabled_tools", "unavailable", "blocked")


class DiagnosticAuthority(Rule):
    """A function that reads quota, budget, deadline or provider-attempt fields out of messages or
    tool results and hides tools on their word: diagnostics are evidence, never availability."""

    id = "TS106"
    name = "diagnostic-authority"
    message = "hide a tool only on a typed owner fact bound to this request's identity, never on a diagnostic field"
    module_level = False  # it reports and reads functions only
    valid = (
        # The deadline word is in an owner's fact the hiding reads; the messages' quota is only logged.
        """
def before_model(self, state):
    for msg in state["messages"]:
        if (quota := msg.get("meta", {}).get("quota_remaining")) is not None:
            log.debug("quota_remaining=%s", quota)
    facts = self.feed.facts_for(state["run_id"])
    hidden = set()
    if any(f.kind == "run_deadline_exhausted" and f.owner == "host" for f in facts):
        hidden |= {"web_search"}
    return {"tools": [t for t in state["tools"] if t["name"] not in hidden]}
""",
        # The messages are read for a diagnostic, but only to log it: the owner's fact hides the tool.
        """
def visible_tools(tools, owner, messages):
    facts = owner.facts()
    mentions_quota = any("quota" in str(m.get("content")) for m in messages)
    if mentions_quota:
        owner.log("model saw a quota message; owner facts decide")
    if facts.web_search_budget_exhausted:
        return [t for t in tools if t["name"] != "web_search"]
    return tools
""",
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
        # The diagnostic read from a local holding part of a tool result.
        Invalid(
            """
def visible_tools(tools, outputs):
    last = outputs[-1] if outputs else None
    body = last.content if last is not None else {}
    if body.get("quota_exhausted"):
        return [t for t in tools if t["name"] != "web_search"]
    return tools
""",
            line=5,
        ),
        # Messages read by key from the state, the filtered list handed back under the tools key.
        Invalid(
            """
def before_model(self, state):
    for msg in reversed(state["messages"]):
        if msg.get("meta", {}).get("quota_remaining") == 0:
            return {"tools": [t for t in state["tools"] if t["name"] not in self.metered]}
    return None
""",
            line=4,
        ),
        # The diagnostic read in a reducer of the module, its total deciding the filter: reported
        # where the filtering function hands the reducer on.
        Invalid(
            """
import functools

def _attempts(total, message):
    return total + int(message.get("metadata", {}).get("provider_attempt", 0))

def narrow(tools, messages, limit=3):
    attempts = functools.reduce(_attempts, messages, 0)
    if attempts >= limit:
        return [s for s in tools if s["name"] != "web_search"]
    return tools
""",
            line=8,
            flow=(
                (7, "parameter `messages`"),
                (5, 'diagnostic read `message.get("metadata", {}).get(...)`'),
                (8, "read through `functools.reduce(...)`, tools hidden on its word"),
            ),
        ),
        # A `match` over each message hides tools in its case: reported once, where it matches,
        # not again where the hidden set is used.
        Invalid(
            """
def hidden_from(transcript):
    hidden = set()
    for entry in transcript:
        match entry:
            case {"role": "tool", "diagnostics": {"deadline_exceeded": True}}:
                hidden.add("web_search")
    return hidden

def resume(request, transcript):
    hidden = hidden_from(transcript)
    request.tools = [t for t in request.tools if t["name"] not in hidden]
""",
            line=5,
        ),
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
        return (Mentions(words=config.diagnostic_words, names=config.readers), config.message_words)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports in a function about messages that hides tools; a reader function it calls is
        # reached by name.
        return unit.meets(self.needs(config)[1:]) and unit.mentions((*config.tool_words, *_HIDING))

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        functions = {function.name.value: function for function in tree.functions()}
        # A reader that hides tools on its own read is reported there; its callers hand on what it hid.
        readers = {
            name: read
            for name, read in _readers(tree, config).items()
            if not _decides(tree, functions[name], read, _hiding(tree, functions[name], config))
        }
        reported: set[int] = set()
        for function in tree.functions():
            if not _about_messages(tree, function, config):
                continue
            hiding = _hiding(tree, function, config)
            if not hiding:
                continue
            carriers = _message_names(tree, function, config)
            decided: list[cst.CSTNode] = []
            for node in tree.findall(function.body, cst.Comparison, cst.Call, cst.Match):
                if any(tree.within(node, outer) for outer in decided):
                    continue  # `msg.get("meta").get("quota") == 0` is one read
                through = _reader_called(node, readers)
                if through is None and _calls_reader(node, config):
                    through = node  # another module's reader: its call is the read this module makes
                if through is None and not (
                    _reads_diagnostic(tree, node, config) and _of_messages(tree, node, config, carriers)
                ):
                    continue
                if not _decides(tree, function, node, hiding):
                    continue
                decided.append(node)
                # A read in another function is reported where the hiding calls it, the read on the way:
                # the reader alone decides nothing (it may serve a log line elsewhere).
                if id(node) not in reported:
                    reported.add(id(node))
                    places = _results(tree, function, config) + (
                        ((through, f"diagnostic read {shown(through)}"),) if through not in (None, node) else ()
                    )
                    label = "diagnostic read" if through in (None, node) else "read through"
                    yield Match(node, f"{label} {shown(node)}, tools hidden on its word", places)


def _about_messages(tree: Tree, node: cst.CSTNode, config: ScanConfig) -> bool:
    """Whether the code names messages or tool results: in its names, or as a key it reads by
    (`state["messages"]`)."""
    if tree.mentions(node, config.message_words):
        return True
    words = set(config.message_words)
    return any(words & set(key_of(read).split("_")) for read in tree.findall(node, cst.Subscript))


def _message_names(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> frozenset[str]:
    """The function's names that hold messages or tool results, or a part of one: the variable of
    a loop or comprehension over them (`for turn in history`, `for m in state["messages"]`), and a
    local set from one (`body = msg.get("content")`, `last = outputs[-1]`)."""
    loops = tree.findall(function.body, cst.For, cst.CompFor)
    assigns = tree.findall(function.body, cst.Assign, cst.AnnAssign, cst.NamedExpr)
    names: set[str] = set()

    def holds(node: cst.CSTNode) -> bool:
        return _of_messages(tree, node, config, frozenset(names))

    changed = True
    while changed:  # names only join: a round that adds none ends it
        changed = False
        for loop in loops:
            if holds(loop.iter) and not set(bound(loop.target)) <= names:
                names |= set(bound(loop.target))
                changed = True
        for assign in assigns:
            targets = {n for target in assigned(assign) for n in bound(target)}
            if assign.value is not None and holds(assign.value) and not targets <= names:
                names |= targets
                changed = True
    return frozenset(names)


def _of_messages(tree: Tree, read: cst.CSTNode, config: ScanConfig, carriers: frozenset[str]) -> bool:
    """Whether a diagnostic read reads a message or tool result, not an owner's fact."""
    read = read.subject if isinstance(read, cst.Match) else read
    return _about_messages(tree, read, config) or any(name.value in carriers for name in tree.findall(read, cst.Name))


def _results(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> tuple[Place, ...]:
    """Where the messages or tool results come in: the list a loop walks, else a parameter."""
    for loop in tree.findall(function.body, cst.For):
        if tree.mentions(loop.iter, config.message_words):
            return ((loop.iter, f"tool results {shown(loop.iter)}"),)
    for param in tree.findall(function.params, cst.Param):
        if tree.mentions(param.name, config.message_words):
            return ((param, f"parameter `{param.name.value}`"),)
    return ()


def _hiding(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> list[cst.CSTNode]:
    """Where the function hides tools: it narrows a tool list, filters one into what it returns or
    assigns, or collects names to hide."""
    found: list[cst.CSTNode] = [
        assign
        for assign in tree.findall(function.body, cst.Assign, cst.AugAssign)
        if any(is_tools(t, config) or tree.mentions(t, _HIDING) for t in assigned(assign))
    ]
    filtering = (cst.ListComp, cst.SetComp, cst.GeneratorExp)
    found += [
        comp
        for comp in tree.findall(function.body, *filtering)
        if comp.for_in.ifs and is_tools(comp.for_in.iter, config)
    ]
    found += [
        call
        for call in tree.calls(function.body)
        if isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("add", "update", "remove")
        and tree.mentions(call.func.value, _HIDING)
    ]
    found += [call for call in tree.calls(function.body) if _hands_hidden(tree, call)]
    return found


def _hands_hidden(tree: Tree, call: cst.Call) -> bool:
    """A call of a function of the module that hands it what to hide: the argument bound to its
    parameter named so (`narrow(entries, {WEB_SEARCH})` of `def narrow(entries, hidden)`)."""
    name = dotted(call.func).removeprefix("self.").removeprefix("cls.")
    functions = tree.memo("functions by name", lambda: {f.name.value: f for f in reversed(tree.functions())})
    function = functions.get(name)
    if function is None:
        return False
    params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    params = params[1:] if params[:1] in (["self"], ["cls"]) and "." in dotted(call.func) else params
    for position, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword else (params[position] if position < len(params) else "")
        if any(word in keyword.lower().split("_") for word in _HIDING) and arg.star == "":
            return True
    return False


def _decides(tree: Tree, function: cst.FunctionDef, read: cst.CSTNode, hiding: list[cst.CSTNode]) -> bool:
    """Whether what `read` gives decides a hiding: the hiding holds it, or runs under an `if` or
    `while` whose test does, directly or through a local set from it (`late = any(...)`, or
    `spent = True` under a test that reads it). A read only logged decides nothing."""
    tainted: set[str] = set()
    changed = True
    while changed:  # names only join the set: a round that adds none ends it
        changed = False
        for statement in tree.findall(function.body, cst.Assign, cst.AugAssign, cst.AnnAssign):
            names = {dotted(target) for target in assigned(statement)} - tainted - {""}
            value = statement.value
            if (
                names
                and value is not None
                and (_holds(tree, value, read, tainted) or _tested(tree, statement, function, read, tainted))
            ):
                tainted |= names
                changed = True
    return any(
        _holds(tree, node, read, tainted)
        or _tested(tree, node, function, read, tainted)
        or (isinstance(read, cst.Match) and tree.within(node, read))  # hidden in one of its cases
        for node in hiding
    )


def _holds(tree: Tree, node: cst.CSTNode, read: cst.CSTNode, tainted: set[str]) -> bool:
    return tree.within(read, node) or any(
        dotted(name) in tainted for name in tree.findall(node, cst.Name, cst.Attribute)
    )


def _tested(tree: Tree, node: cst.CSTNode, function: cst.FunctionDef, read: cst.CSTNode, tainted: set[str]) -> bool:
    """Whether an `if` or `while` of the function around `node` tests what the read gave."""
    around = tree.enclosing(node, (cst.If, cst.While))
    while around is not None and tree.within(around, function):
        if _holds(tree, around.test, read, tainted):
            return True
        around = tree.enclosing(around, (cst.If, cst.While))
    return False


def _readers(tree: Tree, config: ScanConfig) -> dict[str, cst.CSTNode]:
    """The module's functions that read a diagnostic field of messages, each with its first read:
    calling one, or handing it to a call (`functools.reduce(_attempts, messages, 0)`), reads it too."""
    found: dict[str, cst.CSTNode] = {}
    for function, read in diagnostic_readers(tree, config):
        found.setdefault(function.name.value, read)
    return found


def diagnostic_readers(tree: Tree, config: ScanConfig) -> Iterator[tuple[cst.FunctionDef, cst.CSTNode]]:
    """Each function that reads a diagnostic field of messages or tool results, with its first
    read; a call of another module's reader (`config.readers`) is its read. An owner's fact
    compared with a diagnostic word (`fact.kind == "budget_exhausted"`) is no read."""
    for function in tree.functions():
        carriers = _message_names(tree, function, config)
        reads = (
            node
            for node in tree.findall(function.body, cst.Comparison, cst.Call, cst.Match)
            if (_reads_diagnostic(tree, node, config) and _of_messages(tree, node, config, carriers))
            or _calls_reader(node, config)
        )
        first = next(reads, None)
        if first is not None:
            yield function, first


def _calls_reader(node: cst.CSTNode, config: ScanConfig) -> bool:
    """A call of a function another module was found to read diagnostics in (`deadline_reported(m)`)."""
    return isinstance(node, cst.Call) and bool(config.readers) and named(dotted(node.func), config.readers)


def _reader_called(node: cst.CSTNode, readers: dict[str, cst.CSTNode]) -> cst.CSTNode | None:
    """The read of the reader that `node` calls or hands on; None when it names none."""
    if not readers or not isinstance(node, cst.Call):
        return None
    for each in (node.func, *(arg.value for arg in node.args)):
        name = _names_reader(each, readers)
        if name:
            return readers[name]
    return None


def _names_reader(expression: cst.BaseExpression, readers: dict[str, cst.CSTNode]) -> str:
    """`_attempts`, `self._attempts`: a reader of the module, named where it runs or is handed on."""
    owner, _, name = dotted(expression).rpartition(".")
    return name if name in readers and owner in ("", "self", "cls") else ""


def _reads_diagnostic(tree: Tree, node: cst.CSTNode, config: ScanConfig) -> bool:
    """A comparison or `.get()` that names a diagnostic field in a string, or a `match` whose
    patterns or guards do (`case {"diagnostics": {"deadline": "exceeded"}}`)."""
    if isinstance(node, cst.Call) and not dotted(node.func).endswith(".get"):
        return False
    if isinstance(node, cst.Match):
        parts: list[cst.CSTNode] = [part for case in node.cases for part in (case.pattern, case.guard) if part]
    else:
        parts = [node]
    return any(word in s.lower() for part in parts for s in tree.strings(part) for word in config.diagnostic_words)
