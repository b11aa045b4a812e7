"""TS103 self-derived-baseline: the expected surface is read from the request or its seal."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Rule, Tree, assigned, dotted, named
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
    message = "derive the expected surface from the owners' admitted descriptors and trusted facts, never from the request or its seal"
    valid = (
        """
baseline = snapshot_of(contract.admitted)
expected = narrow(baseline, trusted_facts)
check("final", expected, run)
""",
        """
def final_check(self, run):
    self.check("final", self.expected(run), run)
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
        Invalid('expected = capture(request.tools)\ncheck("final", expected, request)\n', line=1),
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
        ),
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return ((*config.baseline, *config.check), (*config.request_words, *config.seal_words))

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[cst.CSTNode]:
        sources = (*config.request_words, *config.seal_words)
        compares = _compares_surfaces(tree, config)
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            targets = assigned(assign)
            if compares and any(named(dotted(t), config.baseline) for t in targets) and assign.value is not None:
                if tree.mentions(assign.value, sources):
                    yield assign
        # Every check is handed the request; one handed the seal as its expected side is self-derived.
        for check in tree.calls_to(tree.module, config.check):
            if any(tree.mentions(arg.value, config.seal_words) for arg in check.args):
                yield check


def _compares_surfaces(tree: Tree, config: ScanConfig) -> bool:
    """Whether the module calls a configured check or compares something with a baseline name."""
    if tree.calls_to(tree.module, config.check):
        return True
    for comparison in tree.findall(tree.module, cst.Comparison):
        operands = (comparison.left, *(target.comparator for target in comparison.comparisons))
        if any(named(dotted(operand), config.baseline) for operand in operands):
            return True
    return False
