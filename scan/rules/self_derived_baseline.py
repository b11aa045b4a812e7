"""TS103 self-derived-baseline: the expected surface is read from the request or its seal."""

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
    key_of,
    named,
    shown,
)
from .._types import ScanConfig


class SelfDerivedBaseline(Rule):
    """An expected surface taken from the request it will be compared with, or from the seal made
    of that request: the check then compares the request with a record of itself.

    Only a module that compares surfaces — one that calls a configured check, or compares with a
    baseline name — has an expected surface: elsewhere `baseline` and `expected` are ordinary words
    (the state a retry starts from, the marks a converter expects to find).
    """

    id = "TS103"
    name = "self-derived-baseline"
    message = (
        "derive the expected surface from the owners' admitted descriptors and trusted facts, never from the "
        "request or its seal"
    )
    valid = (
        # The request's own id (a field that holds a request word) is the key the baseline is stored by.
        """
def intercept(request):
    baseline = BASELINES.lookup(request.request_id)
    check(request.tools, baseline)
""",
        """
baseline = snapshot_of(contract.admitted)
expected = narrow(baseline, trusted_facts)
check("final", expected, run)
""",
        """
def final_check(self, run):
    self.check("final", self.expected(run), run)
""",
        # The request names the turn whose grant is looked up: a key, not the surface.
        """
def send(self, request):
    expected = self.expected_for(request.turn)
    final_check(request.tools, expected)
    return self.gateway.dispatch(request)
""",
        # The sealed request checked against the admission baseline: the seal is what is observed.
        """
def send(self, request):
    sealed = seal(request)
    final_check(sealed.tools, self.baseline)
    return self.gateway.dispatch(sealed)
""",
        """
def attempt(ctx, request_context):
    baseline = AttemptBaseline.capture(request_context)
    for _ in range(3):
        baseline.restore(request_context)
        expected = request_scoped_marks(request_context.messages)
        if shape_differs(expected, request_context.messages):
            return None
""",
    )
    invalid = (
        # An entry of the request's own state, keyed by a tool word.
        Invalid(
            """
def send(self, request):
    baseline = request.state["pinned_surface"]
    check(request.tools, baseline)
    return self.gateway.dispatch(request)
""",
            line=3,
        ),
        Invalid(
            'expected = capture(request.tools)\ncheck("final", expected, request)\n',
            line=1,
            flow=((1, "request read `request.tools`"), (1, "baseline `expected` assigned from it")),
        ),
        Invalid(
            """
def rebase(self, run):
    self.baseline = run.seal

def final(self, run):
    if capture(run.tools) != self.baseline:
        raise SurfaceRefused("final")
""",
            line=3,
        ),
        Invalid(
            """
def final_check(self, run):
    self.check("final", run.seal or self.expected(run), run)
""",
            line=3,
            flow=(
                (3, "seal read `run.seal`"),
                (3, "compared with it as the expected side: `self.check(...)`"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (Mentions(names=(*config.baseline, *config.check)), (*config.request_words, *config.seal_words))

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports a baseline assigned from the request or its seal, or a check handed the seal;
        # the module must check or compare a baseline somewhere.
        last = {name.rsplit(".", 1)[-1] for name in config.baseline}
        reports = unit.mentions(names=(*config.baseline, *config.check)) and unit.mentions(
            (*config.request_words, *config.seal_words)
        )
        return reports or unit.calls(config.check) or bool(unit.compared & last)

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # nothing it finds depends on another function

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        compares = _compares_surfaces(tree, config)
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            targets = assigned(assign)
            baselines = [dotted(t) for t in targets if named(dotted(t), config.baseline)]
            if compares and baselines and assign.value is not None and _reads(tree, assign.value, config):
                yield Match(assign, f"baseline `{baselines[0]}` assigned from it", _read(tree, assign.value, config))
        # Every check is handed the request; one handed the seal as its expected side is self-derived.
        # A seal beside a baseline is the observed side: `final_check(sealed.tools, self.baseline)`.
        for check in tree.calls_to(tree.module, config.check):
            args = [arg.value for arg in check.args]
            sealed = [arg for arg in args if tree.mentions(arg, config.seal_words)]
            against = [arg for arg in args if arg not in sealed and tree.mentions(arg, config.baseline)]
            if sealed and not against:
                yield Match(
                    check, f"compared with it as the expected side: {shown(check)}", _read(tree, sealed[0], config)
                )


def _compares_surfaces(tree: Tree, config: ScanConfig) -> bool:
    """Whether the module calls a configured check, or another module's function that calls one,
    or compares something with a baseline name."""
    if tree.calls_to(tree.module, (*config.check, *config.comparers)):
        return True
    for comparison in tree.findall(tree.module, cst.Comparison):
        operands = (comparison.left, *(target.comparator for target in comparison.comparisons))
        if any(named(dotted(operand), config.baseline) for operand in operands):
            return True
    return False


def _reads(tree: Tree, value: cst.BaseExpression, config: ScanConfig) -> list[cst.BaseExpression]:
    """The reads of the request or its seal in `value` that hand over the surface: the object
    itself (`capture(request)`, `run.seal`, `envelope.request`), its tools (`request.tools`), or
    an entry of it keyed by a tool word (`request.state["pinned_surface"]`). A field read past it
    that names no tools (`envelope.turn`, `request.request_id`) is a key to look the baseline up by."""
    chains = tree.findall(value, cst.Attribute, cst.Name)
    inner = {id(part) for chain in chains if isinstance(chain, cst.Attribute) for part in (chain.value, chain.attr)}
    sources, tools = {*config.request_words, *config.seal_words}, set(config.tool_words)
    found: list[cst.BaseExpression] = []
    for chain in (chain for chain in chains if id(chain) not in inner):
        after = _past_source(dotted(chain), sources)
        if after is not None and (
            all(name in sources for name in after) or any(set(name.split("_")) & tools for name in after)
        ):
            found.append(chain)
    for read in tree.findall(value, cst.Subscript):
        key = set(key_of(read).lower().split("_"))
        if key & tools and _past_source(dotted(read.value), sources) is not None:
            found.append(read)
    return found


def _past_source(name: str, sources: set[str]) -> list[str] | None:
    """The parts of a dotted name after the first that names the request or its seal (in lower
    case); None when no part names one."""
    parts = name.lower().split(".")
    for at, part in enumerate(parts):
        if set(part.split("_")) & sources:
            return parts[at + 1 :]
    return None


def _read(tree: Tree, value: cst.BaseExpression, config: ScanConfig) -> tuple[Place, ...]:
    """The first read of the request or its seal in `value`: `request.tools`, `run.seal`."""
    for node in _reads(tree, value, config) or tree.findall(value, cst.Attribute, cst.Name):
        if tree.mentions(node, config.seal_words):
            return ((node, f"seal read {shown(node)}"),)
        if tree.mentions(node, config.request_words):
            return ((node, f"request read {shown(node)}"),)
    return ()
