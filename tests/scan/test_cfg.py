"""The control-flow graph and the questions asked of it: which dispatches some path reaches
before any check, whether statements check on every way out, whether they always leave."""

from __future__ import annotations

import sys
from textwrap import dedent

import libcst as cst
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.scan._cfg import END, ENTRY, RAISE, RETURN, block, build
from toolsurface.scan._flow import always_leaves, guarantees, unpreceded
from toolsurface.scan._rule import Tree, dotted


def _function(source: str) -> tuple[Tree, list[cst.BaseStatement]]:
    tree = Tree(cst.parse_module(dedent(source)))
    return tree, list(block(tree.functions()[0].body))


def _is(name: str):
    return lambda call: dotted(call.func) == name


def _dispatches(tree: Tree):
    return lambda code: [call for call in tree.calls(code) if dotted(call.func) == "dispatch"]


def unchecked(source: str) -> list[int]:
    """The numbers of the `dispatch(N)` calls of the first function that some path reaches unchecked."""
    tree, body = _function(source)
    found = unpreceded(tree, body, _dispatches(tree), _is("check"))
    return sorted(int(call.args[0].value.value) for call in found)


def checks(source: str, through_raise: bool = False) -> bool:
    tree, body = _function(source)
    return guarantees(tree, body, _is("check"), through_raise=through_raise)


def test_an_early_return_before_the_check_leaves_the_later_dispatch_guarded():
    assert unchecked("def f(x):\n    if x:\n        return\n    check()\n    dispatch(1)\n") == []
    assert unchecked("def f(x):\n    if x:\n        dispatch(1)\n        return\n    check()\n    dispatch(2)\n") == [1]
    # The function does not check on the path that returns early.
    assert not checks("def f(x):\n    if x:\n        return\n    check()\n")


def test_a_check_in_one_arm_guards_nothing_after_the_if_and_one_in_both_arms_does():
    one = "def f(x):\n    if x:\n        check()\n    elif y:\n        pass\n    dispatch(1)\n"
    both = "def f(x):\n    if x:\n        check()\n    else:\n        check()\n    dispatch(1)\n"
    assert unchecked(one) == [1]
    assert unchecked(both) == []
    assert checks(both) and not checks(one)


def test_a_loop_may_run_zero_times_but_code_after_a_check_in_its_body_is_checked():
    source = "def f(xs):\n    for x in xs:\n        check()\n        dispatch(1)\n    dispatch(2)\n"
    assert unchecked(source) == [2]
    assert unchecked("def f(xs):\n    check()\n    for x in xs:\n        dispatch(1)\n    dispatch(2)\n") == []


def test_while_true_leaves_only_by_break():
    assert unchecked("def f():\n    while True:\n        check()\n        break\n    dispatch(1)\n") == []
    breaks_first = "def f(x):\n    while True:\n        if x:\n            break\n        check()\n    dispatch(1)\n"
    assert unchecked(breaks_first) == [1]
    # A loop test that is not `True` may be false at once.
    assert unchecked("def f(x):\n    while x:\n        check()\n        break\n    dispatch(1)\n") == [1]


def test_break_and_continue_skip_the_rest_of_the_body():
    skip = "def f(xs):\n    for x in xs:\n        if x:\n            continue\n        check()\n        dispatch(1)\n"
    assert unchecked(skip) == []
    # The dispatch on the next round may come after a `continue` that skipped the check.
    again = "def f(xs):\n    for x in xs:\n        dispatch(1)\n        if x:\n            continue\n        check()\n"
    assert unchecked(again) == [1]


def test_a_loops_else_runs_only_when_no_break_left_it():
    checked_else = "def f(xs):\n    for x in xs:\n        pass\n    else:\n        check()\n    dispatch(1)\n"
    assert unchecked(checked_else) == []
    breaks = (
        "def f(xs):\n    for x in xs:\n        if x:\n            break\n    else:\n        check()\n    dispatch(1)\n"
    )
    assert unchecked(breaks) == [1]


def test_code_after_a_return_never_runs_so_nothing_there_is_reported():
    assert unchecked("def f():\n    return 1\n    dispatch(1)\n") == []


def test_an_exception_in_a_try_body_may_skip_its_check():
    swallowed = "def f():\n    try:\n        check()\n    except Exception:\n        pass\n    dispatch(1)\n"
    assert unchecked(swallowed) == [1]
    reraised = (
        "def f():\n    try:\n        check()\n    except Exception:\n        log()\n        raise\n    dispatch(1)\n"
    )
    assert unchecked(reraised) == []
    # `else:` runs only after a body that completed, so its dispatch follows the check.
    in_else = (
        "def f():\n    try:\n        check()\n    except Exception:\n        pass\n    else:\n        dispatch(1)\n"
    )
    assert unchecked(in_else) == []


def test_finally_runs_on_every_way_out_and_each_way_goes_on_where_it_went():
    # The return path skips the check but also the dispatch: `finally` does not merge the two.
    source = """
        def f(x):
            try:
                if x:
                    return
                check()
            finally:
                log()
            dispatch(1)
    """
    assert unchecked(source) == []
    # `finally` itself runs on the path that returned before the check.
    assert unchecked(source.replace("log()", "dispatch(2)")) == [2]
    settles = "def f(x):\n    try:\n        if x:\n            raise Refused()\n    finally:\n        check()\n"
    assert checks(settles, through_raise=True)
    assert not checks(settles.replace("        check()", "        if y:\n            check()"), through_raise=True)


def test_a_raise_counts_as_a_way_out_only_when_asked():
    source = "def f(x):\n    if x:\n        raise Refused()\n    check()\n"
    assert checks(source)
    assert not checks(source, through_raise=True)
    assert checks("def f(x):\n    check()\n    raise Refused()\n", through_raise=True)
    assert not checks("def f(x):\n    assert x\n    check()\n", through_raise=True)


def test_with_bodies_run_and_match_cases_are_tried_in_turn():
    assert unchecked("def f():\n    with lock():\n        check()\n    dispatch(1)\n") == []
    cases = """
        def f(x):
            match x:
                case 1:
                    check()
                case _:
                    check()
            dispatch(1)
    """
    assert unchecked(cases) == []
    # Without an irrefutable case, no case may match.
    assert unchecked(cases.replace("case _:", "case 2:")) == [1]
    # A guarded wildcard may fail its guard.
    assert unchecked(cases.replace("case _:", "case _ if ready():")) == [1]


def test_calls_in_nested_functions_and_lambdas_are_not_made_where_they_are_written():
    assert unchecked("def f():\n    def inner():\n        check()\n    dispatch(1)\n") == [1]
    assert unchecked("def f():\n    later = lambda: check()\n    dispatch(1)\n") == [1]
    assert unchecked("def f():\n    later = lambda: 1; check()\n    dispatch(1)\n") == []


def test_a_dispatch_in_a_test_or_with_item_is_a_target_too():
    source = """
        def f(xs):
            with dispatch(1) as stream:
                pass
            if dispatch(2):
                check()
            for x in dispatch(3):
                pass
    """
    assert unchecked(source) == [1, 2, 3]


def test_always_leaves_by_return_raise_or_looping_forever_but_not_by_break():
    def leaves(source: str) -> bool:
        tree, body = _function(source)
        return always_leaves(tree, body)

    assert leaves("def f(x):\n    if x:\n        return 1\n    else:\n        raise E\n")
    assert leaves("def f():\n    while True:\n        pass\n")
    assert not leaves("def f(xs):\n    for x in xs:\n        return x\n")
    assert not leaves("def f(x):\n    if x:\n        return 1\n")
    tree, body = _function("def f(xs):\n    for x in xs:\n        if x:\n            break\n")
    loop = body[0]
    assert isinstance(loop, cst.For) and isinstance(loop.body.body[0], cst.If)
    assert not always_leaves(tree, block(loop.body.body[0].body))


def test_the_fixed_units_come_first_and_only_the_function_body_is_in_the_graph():
    tree, body = _function("def f():\n    def inner():\n        dispatch(1)\n    return 2\n")
    graph = build(body, tree.calls_made)
    assert (ENTRY, END, RETURN, RAISE) == (0, 1, 2, 3)
    assert [call for unit in graph.units for call in unit.calls] == []
    reached = graph.reached_without(lambda unit: False)
    assert reached[RETURN] and not reached[END] and not reached[RAISE]


def test_long_elif_chains_and_match_statements_are_built_without_recursion():
    arms = "".join(f"    elif x == {index}:\n        note({index})\n" for index in range(1500))
    cases = "".join(f"        case {index}:\n            note({index})\n" for index in range(1500))
    head = "def f(x):\n    if x is None:\n        check()\n"
    source = f"{head}{arms}    else:\n        check()\n    match x:\n{cases}    dispatch(1)\n"
    tree, body = _function(source)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)  # far fewer frames than arms or cases: only nesting may recurse
    try:
        found = list(unpreceded(tree, body, _dispatches(tree), _is("check")))
    finally:
        sys.setrecursionlimit(limit)
    assert len(found) == 1


# A small language of nested statements, run by a reference interpreter that follows every branch.
Statement = tuple


def _statements(depth: int, in_loop: bool) -> st.SearchStrategy[list[Statement]]:
    leaves = [st.just(("check",)), st.builds(lambda n: ("dispatch", n), st.integers(0, 99)), st.just(("return",))]
    if in_loop:
        leaves += [st.just(("break",)), st.just(("continue",))]
    if depth == 0:
        return st.lists(st.one_of(leaves), max_size=4)
    inner = _statements(depth - 1, in_loop)
    compound = [
        st.builds(lambda a, b: ("if", a, b), inner, inner),
        st.builds(lambda a: ("for", a), _statements(depth - 1, True)),
    ]
    return st.lists(st.one_of(*leaves, *compound), max_size=4)


def _render(statements: list[Statement], indent: int) -> str:
    pad = "    " * indent
    lines = []
    for statement in statements or [("pass",)]:
        kind = statement[0]
        if kind == "check":
            lines.append(f"{pad}check()\n")
        elif kind == "dispatch":
            lines.append(f"{pad}dispatch({statement[1]})\n")
        elif kind == "if":
            lines.append(
                f"{pad}if flag():\n{_render(statement[1], indent + 1)}{pad}else:\n{_render(statement[2], indent + 1)}"
            )
        elif kind == "for":
            lines.append(f"{pad}for item in items:\n{_render(statement[1], indent + 1)}")
        else:
            lines.append(f"{pad}{kind}\n")
    return "".join(lines)


def _run(statements: list[Statement], checked: bool, found: set[int]) -> set[tuple[str, bool]]:
    """Every way the statements may end ("next", "return", "break", "continue") with whether a
    check ran; `found` collects the dispatches some execution reaches unchecked."""
    states = {("next", checked)}
    for statement in statements:
        following: set[tuple[str, bool]] = set()
        for way, done in states:
            following |= _step(statement, done, found) if way == "next" else {(way, done)}
        states = following
    return states


def _step(statement: Statement, checked: bool, found: set[int]) -> set[tuple[str, bool]]:
    kind = statement[0]
    if kind == "check":
        return {("next", True)}
    if kind == "dispatch":
        if not checked:
            found.add(statement[1])
        return {("next", checked)}
    if kind == "if":
        return _run(statement[1], checked, found) | _run(statement[2], checked, found)
    if kind == "for":
        heads, pending, ends = {checked}, [checked], set()
        while pending:  # each round starts in a state some earlier round ended in
            for way, done in _run(statement[1], pending.pop(), found):
                if way in ("next", "continue") and done not in heads:
                    heads.add(done)
                    pending.append(done)
                elif way in ("break", "return"):
                    ends.add(("next" if way == "break" else way, done))
        return ends | {("next", head) for head in heads}
    return {(kind, checked)}


@given(_statements(3, False))
def test_the_graph_agrees_with_running_every_branch(program):
    source = f"def f():\n{_render(program, 1)}"
    found: set[int] = set()
    ends = _run(program, False, found)
    assert set(unchecked(source)) == found
    assert checks(source) == all(done for _, done in ends)
    tree, body = _function(source)
    assert always_leaves(tree, body) == all(way == "return" for way, _ in ends)


@given(_statements(3, False))
def test_a_check_first_in_the_function_precedes_every_dispatch(program):
    assert unchecked(f"def f():\n    check()\n{_render(program, 1)}") == []
