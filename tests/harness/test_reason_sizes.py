"""Every reason the oracle writes is one line of at most `MAX_REASON` characters, whatever the host
sent or said; a list of changes is said by its count and its first few, and the whole list is in
the case's evidence."""

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolsurface.contract._canonical import Snapshot, canonical_json
from toolsurface.contract._diff import Removed, diff
from toolsurface.contract._owner import Settlement
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._oracles import (
    LATE,
    amended,
    evidence,
    failed,
    judge,
    unjudged,
)
from toolsurface.harness._plan import plan
from toolsurface.harness._reasons import (
    MAX_REASON,
    changes_said,
    clip,
    fits,
    listed,
    said_in,
)
from toolsurface.harness._runner import expected_surface
from toolsurface.harness._targets import load_with_traits
from toolsurface.harness._types import (
    Amendment,
    Capacity,
    CaseRecord,
    Crashed,
    Died,
    Dispatch,
    LedgerEvent,
    LedgerOp,
    Observation,
    PublicationsDiff,
    Published,
    Refused,
    Returned,
    Role,
    TimedOut,
    Verdict,
    VerdictKind,
)
from toolsurface.mutators import Must
from toolsurface.scenarios import load

#: The recording with the most tools sent in one request: where a reordering host moves dozens.
WIDE = "desk-review-main-openai-46-tools"

#: Host text: any characters, line breaks of every kind and long runs included.
HOST_TEXT = st.text(st.characters(codec="utf-8"), max_size=400) | st.text("ab \n\r\t\u2028\x85:;'…", max_size=400)


@pytest.fixture(scope="module")
def wide():
    (scenario,) = load_wide()
    cases = [c for c in plan([scenario], seed=0) if c.call == 1 and not c.equivalent]
    traits = load_with_traits("reference:guarded").traits
    pick = {must: next(c for c in cases if c.must is must) for must in Must}
    return scenario, {must: (case, expected_surface(traits, scenario, case)) for must, case in pick.items()}


def load_wide():
    return [s for s in load() if s.id == WIDE]


@st.composite
def sent_surfaces(draw, expected):
    """A surface a host might send instead: the expected one reordered, some tools dropped, some
    renamed (names of any length), some descriptions rewritten."""
    entries = expected.entries()
    order = draw(st.permutations(range(len(entries))))
    kept = [entries[i] for i in order if not draw(st.booleans()) or draw(st.booleans())]
    for entry in kept:
        if draw(st.integers(0, 9)) == 0:
            entry[0] = draw(st.text(min_size=1, max_size=300))
        if draw(st.integers(0, 9)) == 0:
            entry[1] = draw(HOST_TEXT)
    return Snapshot(canonical_json(kept))


STOPS = st.one_of(
    st.just(Returned()),
    st.builds(Refused, HOST_TEXT, HOST_TEXT),
    st.builds(Capacity, HOST_TEXT, HOST_TEXT),
    st.builds(Crashed, HOST_TEXT, HOST_TEXT, HOST_TEXT),
    st.builds(Died, HOST_TEXT),
    st.builds(TimedOut, st.booleans()),
)

#: A publication store a host left: keys and bodies of any text, in every part of the difference.
_BODIES = st.lists(st.builds(Published, HOST_TEXT, HOST_TEXT), max_size=3).map(tuple)
STORES = st.builds(PublicationsDiff, _BODIES, _BODIES, _BODIES)


@st.composite
def observations(draw, scenario, expected):
    request, lane = scenario.identity.request, scenario.lane.value
    sent = draw(st.lists(sent_surfaces(expected[0]), max_size=2))
    settle = draw(st.sampled_from(list(Settlement)))
    ledger = (
        LedgerEvent(lane, LedgerOp.RESERVE, request),
        LedgerEvent(lane, LedgerOp.SETTLE, request, settle, draw(st.booleans()), draw(HOST_TEXT)),
    )
    lines = st.lists(HOST_TEXT, max_size=60)
    return Observation(
        dispatches=tuple(
            Dispatch(request, surface, 1, draw(st.none() | HOST_TEXT), call) for call, surface in enumerate(sent, 1)
        ),
        ledger=ledger[: draw(st.integers(0, 2))],
        open_reservations=tuple(draw(st.lists(HOST_TEXT, max_size=3))),
        points=tuple(draw(st.lists(HOST_TEXT, max_size=5)))
        + scenario.points[: draw(st.integers(0, len(scenario.points)))],
        injected=draw(st.booleans()),
        injection_problem=draw(st.none() | HOST_TEXT),
        stop=draw(STOPS),
        publications=draw(STORES),
        stale=tuple(draw(st.lists(HOST_TEXT, max_size=3))),
        leaked=tuple(draw(lines)),
        forks=draw(st.integers(0, 2)),
        not_carried=draw(st.none() | HOST_TEXT),
        listed=draw(st.integers(0, 2)),
        no_clean_run=draw(st.none() | HOST_TEXT),
        unfollowed=draw(st.none() | HOST_TEXT),
        first_run=tuple(draw(lines)),
    )


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
def test_every_reason_the_oracle_writes_is_one_short_line(wide, data):
    scenario, picked = wide
    case, expected = picked[data.draw(st.sampled_from(list(Must)))]
    observed = data.draw(observations(scenario, expected))
    verdict = judge(case, observed, scenario, expected)
    assert fits(verdict.reason), verdict.reason
    # What comes after the record (a late effect, a thread left running) is said beside it, and fits too.
    notes = [LATE + note for note in data.draw(st.lists(HOST_TEXT, min_size=1, max_size=5))]
    record = CaseRecord(case, verdict, verdict, evidence(case, observed, scenario, expected), None)
    late = amended(
        record, [Amendment(case.index, role, note, data.draw(st.booleans())) for role in Role for note in notes]
    )
    assert fits(late.verdict.reason) and fits(late.red_verdict.reason), (late.verdict.reason, late.red_verdict.reason)


@given(reason=HOST_TEXT, why=HOST_TEXT, kind=st.sampled_from(list(VerdictKind)))
def test_a_reason_beside_another_fits_and_keeps_both_beginnings(reason, why, kind):
    verdict, why = Verdict(kind, clip(reason), ReasonCode.DISPATCHED_WITH_CHANGE), LATE + why
    for made in (failed(verdict, ReasonCode.LATE_EFFECT, why), unjudged(verdict, ReasonCode.UNWATCHED, why)):
        assert fits(made.reason)
        assert made.reason.startswith(clip(why, 40).removesuffix("…")) and f" (else: {kind.value}, " in made.reason


ENTRY = st.tuples(
    st.text(min_size=1, max_size=80),
    st.text(max_size=40),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=3),
)


@given(
    before=st.lists(ENTRY, max_size=40, unique_by=lambda e: e[0]),
    after=st.lists(ENTRY, max_size=40, unique_by=lambda e: e[0]),
    width=st.integers(60, MAX_REASON),
)
# Three changes whose count alone is wider than the reason: the count is cut.
@example(before=[("0", "", {}), ("00", "0", {"": 0})], after=[("00", "", {})], width=60)
def test_a_list_of_changes_is_counted_and_fits_any_width(before, after, width):
    changes = diff([list(e) for e in before], [list(e) for e in after])
    said = changes_said(changes, width)
    assert len(said) <= width and fits(said)
    if len(changes) > 1:
        # The count opens it, and adds up to every change, whichever were named; at a narrow width
        # the count itself may be cut ("…"), and then only what is left of it shows.
        counted, _, _ = said.partition(", e.g. ")
        numbers = sum(map(int, re.findall(r"(?:^|, | and )\w+ (\d+) ", counted)))
        assert numbers == len(changes) if not counted.endswith("…") else numbers <= len(changes)
    elif changes:
        # One change is said as itself; a long tool name in it is cut, and where it was still shows.
        assert said == said_in(changes[0], width)
        if isinstance(changes[0], Removed):
            assert said.endswith(f"(was at {changes[0].index})")


def test_a_list_is_named_by_its_first_few_and_counted():
    many = [f"moved 'tool_{n}' from {n} to {45 - n}" for n in range(46)]
    assert (
        listed(many)
        == "moved 'tool_0' from 0 to 45; moved 'tool_1' from 1 to 44; moved 'tool_2' from 2 to 43; … (46 in all)"
    )
    assert listed(["x" * 300]) == "x" * 159 + "…"
    assert listed(["a\nb", "c"]) == "a b; c"


def test_a_reordered_surface_is_said_by_its_count_and_kept_whole_in_the_evidence(wide):
    scenario, picked = wide
    case, expected = picked[Must.DISPATCH]
    entries = expected[0].entries()
    sent = Snapshot(canonical_json(sorted(entries, key=lambda e: e[0])))
    observed = dataclasses.replace(observed_dispatch(scenario, sent), points=scenario.points, injected=True)
    verdict = judge(case, observed, scenario, expected)
    moved = evidence(case, observed, scenario, expected).diff
    assert len(moved) > 30 and all(line.startswith("moved '") for line in moved)
    assert verdict.reason.startswith(
        f"dispatched a surface that differs from the expected one: moved {len(moved)} tools, e.g. {moved[0]}"
    )
    assert fits(verdict.reason)


def observed_dispatch(scenario, sent):
    request, lane = scenario.identity.request, scenario.lane.value
    ledger = (
        LedgerEvent(lane, LedgerOp.RESERVE, request),
        LedgerEvent(lane, LedgerOp.SETTLE, request, Settlement.DISPATCHED),
    )
    return Observation((Dispatch(request, sent, 1),), ledger, (), (), True, None, Returned())
