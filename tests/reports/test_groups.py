"""Failures grouped by cause: reason classes, and that every failing case lands in exactly one group."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.contract._diff import (
    Added,
    DescriptionChanged,
    Moved,
    Removed,
    Renamed,
    SchemaChanged,
    Swapped,
    WireChanged,
    summary_changes,
)
from toolsurface.harness._types import VerdictKind
from toolsurface.reports._groups import causes, kind_of, reason_class

FAILING = [kind for kind in VerdictKind if not kind.ok]
#: Reasons as the oracles word them, each with what is particular to one case.
REASONS = [
    "refused, but reservation main:req_main_0019 was never settled; reservation left open: main:req_main_0019",
    "refused, but reservation child:req_child_0004 was never settled; reservation left open: child:req_child_0004",
    "dispatched 1 request(s) with the change: removed 'market__web_search' (was at 2)",
    "dispatched 2 request(s) with the change: removed 5 tools, e.g. removed 'a' (was at 0); removed 'b' (was at 3); …",
    "dispatched 1 request(s) with the change: schema of 'x' changed at /$defs/source_ref/properties/kind/enum",
    "a legitimate change was refused: final check: tool surface differs from the expected one: added 'w' at 2",
    "mutation could not be applied at 'hook': no tool named 'q1' in the request at this point",
]


@pytest.fixture(scope="module")
def pool(recorded):
    """Real case records, of every kind, point and delivery a small run has."""
    return recorded(target="reference:legacy", red_target="none", select=["etf-compare-main-openai/*"]).cases


@pytest.mark.parametrize(
    "reasons, same",
    [
        (REASONS[:2], True),
        ((REASONS[2], REASONS[3]), True),
        ((REASONS[2], REASONS[4]), False),
        (("target crashed: ValueError: 3", "target crashed: ValueError: 17"), True),
        # A list counted and named in part is one class with a list of one, wherever it was cut: a
        # class names the kinds of change the count names, not the few there was room to list.
        (
            (
                (
                    "dispatched a surface that differs from the expected one: "
                    "moved 38 tools, e.g. moved 'a' from 3 to 0; moved 'bcd' …"
                ),
                "dispatched a surface that differs from the expected one: moved 'x' from 1 to 0",
            ),
            True,
        ),
        (
            (
                (
                    "dispatched a surface that differs from the expected one: "
                    "removed 2 tools and added 1 tool, e.g. removed 'a' (was at 3); …"
                ),
                "dispatched a surface that differs from the expected one: removed 'x' (was at 1); added 'y' at 4",
            ),
            True,
        ),
        (
            (
                (
                    "dispatched a surface that differs from the expected one: "
                    "moved 2 tools and removed 1 tool, e.g. moved 'a' from 3 to 0; …"
                ),
                "dispatched a surface that differs from the expected one: moved 'x' from 1 to 0",
            ),
            False,
        ),
        (
            (
                "dispatched a surface that differs from the expected one: moved 3 tools, e.g. moved 'a' from 3 to 0; …",
                (
                    "dispatched a surface that differs from the expected one: "
                    "removed 3 tools, e.g. removed 'a' (was at 0); …"
                ),
            ),
            False,
        ),
        # A cut is not any other change of the same field: a length limit, not an edit.
        (
            (
                "dispatched 1 request(s) with the change: description of 'x' cut from 6912 to 1024 characters",
                "dispatched 1 request(s) with the change: description of 'y' changed",
            ),
            False,
        ),
        # A host's message cut to fit, wherever it was cut, is the same finding.
        (
            (
                (
                    "a legitimate change was refused: final check: tool surface differs from the expected one: "
                    "added 'market__web_search' at 2; ad…"
                ),
                (
                    "a legitimate change was refused: final check: tool surface differs from the expected one: "
                    "added 'market__web_se…"
                ),
            ),
            True,
        ),
        (("target crashed: ValueError: x", "target crashed: KeyError: x"), False),
    ],
)
def test_a_reason_class_leaves_out_only_what_is_particular_to_a_case(reasons, same):
    first, second = map(reason_class, reasons)
    assert (first == second) is same, (first, second)


def test_a_reason_class_reads_as_the_reason_with_placeholders():
    assert (
        reason_class(REASONS[0])
        == "refused, but reservation <request> was never settled; reservation left open: <request>"
    )
    assert reason_class(REASONS[3]) == "dispatched N request(s) with the change: removed N tools"
    assert reason_class(REASONS[4]) == "dispatched N request(s) with the change: changed N schema places"
    assert (
        reason_class(REASONS[6])
        == "mutation could not be applied at '…': no tool named '…' in the request at this point"
    )


@st.composite
def failing_cases(draw, pool):
    """Failing records made from real ones: each a distinct case, with a drawn verdict and reason."""
    picks = draw(
        st.lists(st.tuples(st.sampled_from(pool), st.sampled_from(FAILING), st.sampled_from(REASONS)), max_size=60)
    )
    return [
        replace(
            record,
            case=replace(record.case, id=f"{record.id}#{n}", index=n),
            verdict=replace(record.verdict, kind=kind, reason=reason),
        )
        for n, (record, kind, reason) in enumerate(picks)
    ]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_failing_case_lands_in_exactly_one_group(pool, data):
    cases = data.draw(failing_cases(pool))
    found = causes(cases)
    members = [case.id for cause in found for group in cause.groups for case in group.members]
    assert sorted(members) == sorted(case.id for case in cases)
    assert sum(cause.count for cause in found) == len(cases)
    for cause in found:
        assert cause.count == sum(group.count for group in cause.groups) == len(cause.members) > 0
        assert {(case.verdict.kind, reason_class(case.verdict.reason)) for case in cause.members} == {
            (cause.verdict, cause.reason)
        }
        for group in cause.groups:
            assert {(str(c.case.mutation.kind), c.case.point, c.case.mutation.delivery) for c in group.members} == {
                (group.kind, group.point, group.delivery)
            }
            assert group.representative == min(group.members, key=lambda case: case.case.index)
        assert [g.count for g in cause.groups] == sorted((g.count for g in cause.groups), reverse=True)
    assert [cause.count for cause in found] == sorted((cause.count for cause in found), reverse=True)
    # Two causes or two groups of one cause never share a key.
    assert len({(cause.verdict, cause.reason) for cause in found}) == len(found)
    for cause in found:
        assert len({(g.kind, g.point, g.delivery) for g in cause.groups}) == len(cause.groups)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), seed=st.integers())
def test_the_grouping_is_the_same_whatever_order_the_cases_come_in(pool, data, seed):
    cases = data.draw(failing_cases(pool))
    shuffled = list(cases)
    random.Random(seed).shuffle(shuffled)
    assert causes(shuffled) == causes(cases)


def test_ties_are_broken_by_key(pool):
    record = pool[0]
    cases = [
        replace(
            record,
            case=replace(record.case, id=f"{record.id}#{n}", index=n),
            verdict=replace(record.verdict, kind=kind, reason=reason),
        )
        for n, (kind, reason) in enumerate(
            [(VerdictKind.ERROR, "b"), (VerdictKind.SURVIVED, "b"), (VerdictKind.SURVIVED, "a")]
        )
    ]
    assert [(cause.verdict, cause.reason) for cause in causes(cases)] == [
        (VerdictKind.SURVIVED, "a"), (VerdictKind.SURVIVED, "b"), (VerdictKind.ERROR, "b")
    ]  # fmt: skip


NAMES = st.text(min_size=1, max_size=30)


@st.composite
def changes(draw):
    """One change of each kind `_diff` makes, named anyhow (a name may itself read like a change)."""
    name, other, at = draw(NAMES), draw(NAMES), draw(st.integers(0, 200))
    return draw(
        st.sampled_from(
            [
                Added(name, at),
                Removed(name, at),
                Renamed(name, other, at),
                Renamed(name + other, name, at),  # cut short, as a length limit cuts
                Moved(name, at, at + 1),
                Swapped(name, other, at, at + 1),
                DescriptionChanged(name),
                DescriptionChanged(name, cut=(300, 120)),
                SchemaChanged(name, "/properties/q"),
                WireChanged(name, draw(st.sampled_from(["strict", "title", "annotations", "output_schema"]))),
                *summary_changes("a\nb", f"a\n{other}"),
                *summary_changes(None, other),
                *summary_changes(other, None),
                *summary_changes("a\nb", "b\na"),
            ]
        )
    )


@settings(max_examples=300)
@given(change=changes())
def test_a_change_read_back_from_its_words_is_counted_as_it_counts_itself(change):
    # A reason is counted from the changes themselves (`tally`); a cause reads the same counts back
    # from the reason's words. The two must agree for every kind of change.
    assert kind_of(" ".join(str(change).split())) == change.counted
