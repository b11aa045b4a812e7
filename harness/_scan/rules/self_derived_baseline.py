"""TS103 self-derived-baseline: the expected surface is read from the request or its seal."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Rule, Tree, assigned, dotted, named
from .._types import ScanConfig


class SelfDerivedBaseline(Rule):
    """An expected surface taken from the request it will be compared with, or from the seal made
    of that request: the check then compares the request with a record of itself."""

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
    )
    invalid = (
        Invalid("expected = capture(request.tools)\n", line=1),
        Invalid("self.baseline = run.seal\n", line=1),
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
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            targets = assigned(assign)
            if any(named(dotted(t), config.baseline) for t in targets) and assign.value is not None:
                if tree.mentions(assign.value, sources):
                    yield assign
        # Every check is handed the request; one handed the seal as its expected side is self-derived.
        for check in tree.calls_to(tree.module, config.check):
            if any(tree.mentions(arg.value, config.seal_words) for arg in check.args):
                yield check
