"""Classic source-mutation operators: each, on a small function, writes exactly the expected
mutants, under ids that stay the same from run to run."""

import libcst as cst
import pytest

from toolsurface.scan import ScanConfig
from toolsurface.scan._operators import CLASSIC
from toolsurface.scan._seams import SEAMS, function_names, source_mutants

#: Each operator, a function it mutates, and every mutant it writes: (id, the changed line).
EXAMPLES = {
    "NegateCondition": (
        "def f(x, y):\n    if x and y:\n        return 1\n    return 2 if not x else 3\n",
        [("NegateCondition@2:8", "    if not (x and y):"), ("NegateCondition@4:17", "    return 2 if x else 3")],
    ),
    "FlipComparison": (
        "def f(a, b):\n    return a == b or a < b or a >= b or a is None or a not in b\n",
        [
            ("FlipComparison@2:14", "    return a != b or a < b or a >= b or a is None or a not in b"),
            ("FlipComparison@2:24", "    return a == b or a <= b or a >= b or a is None or a not in b"),
            ("FlipComparison@2:33", "    return a == b or a < b or a > b or a is None or a not in b"),
            ("FlipComparison@2:43", "    return a == b or a < b or a >= b or a is not None or a not in b"),
            ("FlipComparison@2:56", "    return a == b or a < b or a >= b or a is None or a in b"),
        ],
    ),
    "SwapBoolean": (
        "def f(a, b, c):\n    return a and b or c\n",
        [("SwapBoolean@2:14", "    return a or b or c"), ("SwapBoolean@2:20", "    return a and b and c")],
    ),
    "SwapTrueFalse": (
        "def f(self):\n    self.done = True\n    return False\n",
        [("SwapTrueFalse@2:17", "    self.done = False"), ("SwapTrueFalse@3:12", "    return True")],
    ),
    "IncrementNumber": (
        "def f(tools):\n    return len(tools) // 4 + 0\n",
        [
            ("IncrementNumber@2:26", "    return len(tools) // 5 + 0"),
            ("IncrementNumber@2:30", "    return len(tools) // 4 + 1"),
        ],
    ),
    "DecrementNumber": (
        "def f(tools):\n    return len(tools) // 4 + 0\n",
        [
            ("DecrementNumber@2:26", "    return len(tools) // 3 + 0"),
            ("DecrementNumber@2:30", "    return len(tools) // 4 + -1"),
        ],
    ),
    "EmptyString": (
        'def f(name):\n    """A docstring is never mutated."""\n    return f"{name}!" + b\'x\'.decode()\n',
        [
            ("EmptyString@3:12", "    return \"\" + b'x'.decode()"),
            ("EmptyString@3:25", "    return f\"{name}!\" + b''.decode()"),
        ],
    ),
    "EmptyTuple": (
        "def f(web):\n    x = (1, 2)\n    return Ruling((web.search, web.read), ())\n",
        [("EmptyTuple@3:20", "    return Ruling((), ())")],
    ),
    "RemoveStatement": (
        "def f(items, out):\n    for item in items:\n        if item:\n            continue\n        out.append(item)\n"
        "    total = len(out)\n    raise ValueError(total)\n",
        [
            ("RemoveStatement@4:13", "            pass"),
            ("RemoveStatement@5:9", "        pass"),
            ("RemoveStatement@6:5", "    pass"),
            ("RemoveStatement@7:5", "    pass"),
        ],
    ),
    "SkipLoopBody": (
        "def f(fact, binding):\n    for field in fields(binding):\n        check(fact, field)\n    return fact\n",
        [("SkipLoopBody@2:5", "        pass")],
    ),
}


def changed_line(before: str, after: str) -> str:
    """The one line of `after` that differs from `before` (they have as many lines)."""
    pairs = zip(before.splitlines(), after.splitlines(), strict=True)
    changed = [new for old, new in pairs if old != new]
    assert len(changed) == 1, changed
    return changed[0]


def test_every_operator_has_examples():
    assert set(EXAMPLES) == set(CLASSIC)


@pytest.mark.parametrize("operator", CLASSIC)
def test_an_operator_writes_exactly_its_mutants(operator):
    source, expected = EXAMPLES[operator]
    mutants = source_mutants(source, "example.py", ScanConfig(), frozenset({operator}))
    assert [(m.id, changed_line(source, m.source)) for m in mutants] == expected
    for mutant in mutants:
        cst.parse_module(mutant.source)  # valid Python
        assert mutant.mutator == operator and mutant.id == f"{operator}@{mutant.line}:{mutant.column}"
    # Stable: the same source gives the same ids and the same mutants, every time.
    assert source_mutants(source, "example.py", ScanConfig(), frozenset({operator})) == mutants


def test_only_code_that_runs_is_mutated():
    # Module and class level code, decorators, annotations and defaults run once, when imported.
    source = (
        "LIMIT = 16\n"
        "class C:\n"
        "    size: int = 4\n"
        "    @cache(maxsize=2)\n"
        "    def f(self, x: int = 1) -> bool:\n"
        '        """Docstring."""\n'
        "        return x\n"
    )
    assert source_mutants(source, "example.py", ScanConfig(), frozenset(CLASSIC)) == ()


def test_a_negated_equality_is_the_flip_alone():
    # `not a == b` is `a != b`: the condition is one mutant, written by FlipComparison.
    source = "def f(a, b):\n    if a == b:\n        return 1\n    if a < b:\n        return 2\n"
    mutants = source_mutants(source, "example.py", ScanConfig(), frozenset(CLASSIC))
    negated = [m.id for m in mutants if m.mutator == "NegateCondition"]
    assert negated == ["NegateCondition@4:8"]


def test_functions_keep_the_mutants_inside_the_functions_named():
    source = (
        "def rule(x):\n    return x == 1\n\n\n"
        "class Capacity:\n    def exceeded(self, n):\n        return n > 2\n\n    def other(self):\n        return 3\n"
    )
    assert function_names(source) == {"rule", "Capacity.exceeded", "Capacity.other"}
    operators = frozenset(CLASSIC)
    scoped = source_mutants(source, "example.py", ScanConfig(), operators, frozenset({"Capacity.exceeded"}))
    assert [m.id for m in scoped] == ["FlipComparison@7:18", "IncrementNumber@7:20", "DecrementNumber@7:20"]


def test_the_default_operators_are_the_seams_alone():
    source = "def check(run):\n    if run:\n        run.check_summary(run)\n"
    default = source_mutants(source, "example.py", ScanConfig())
    assert {m.mutator for m in default} <= set(SEAMS) and default
    both = source_mutants(source, "example.py", ScanConfig(), frozenset((*SEAMS, *CLASSIC)))
    assert {m.mutator for m in both} == {"RemoveCheck", "NegateCondition", "RemoveStatement"}
