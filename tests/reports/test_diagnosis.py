"""The diagnosis: failing cases matched to the reference defects' kill signatures.

The proof is on hosts written unlike the reference, each correct but for one planted flaw
(`tests/fixtures/seeded_hosts.py`): on a selection its correct twin passes whole, the top likeness
names the defect of the planted flaw.
"""

import dataclasses
import fnmatch

import pytest

from tests.fixtures.planned import planned as default_plan
from toolsurface.harness._kill_signatures import (
    KillSignature,
    KillSignatures,
    bundled,
    signature_of,
    where_of,
)
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import CaseRecord, VerdictKind
from toolsurface.reports import _diagnosis
from toolsurface.reports._diagnosis import MIN_SHOWN, diagnose
from toolsurface.scenarios import load

HOSTS = "tests.fixtures.seeded_hosts"
#: Seeded host, the cases it runs on (fast, and passed whole by its correct twin), the defect of its flaw.
SEEDED = [
    ("functional_final_only_with_hooks", ("etf-compare-main-openai/*", "etf-compare-main-hooked/*"), "hook-only-final"),
    ("functional_order_blind", ("etf-compare-main-hooked/*",), "name-keyed"),
    ("staged_never_settles", ("price-history-child-hooked/*",), "no-settle"),
    ("staged_settles_on_main", ("price-history-child-hooked/*",), "wrong-lane-settle"),
    ("loop_pins_descriptions", ("etf-compare-main-hooked/*",), "description-pin"),
    ("loop_first_call_only", ("etf-compare-main-tool-loop/*",), "first-call-only"),
    ("guard_summary_blind", ("entry-main-portfolio-document/*",), "entry-overclaim"),
    ("guard_any_known_owner", ("etf-news-main-budget-exhausted/*", "filings-scan-child-deadline/*"), "any-known-owner"),
]
CORRECT = {
    "functional": "functional_correct",
    "staged": "staged_correct",
    "loop": "loop_correct",
    "guard": "guard_correct",
}


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def planned(scenarios):
    return default_plan(0)


def run(scenarios, planned, spec, globs):
    cases = [case for case in planned if any(fnmatch.fnmatchcase(case.id, glob) for glob in globs)]
    assert cases, globs
    return [r for r in Runner(scenarios, load_target(spec)).run(cases) if isinstance(r, CaseRecord)]


def diagnosis_of(records, known=None):
    failing = [record for record in records if not record.verdict.kind.ok]
    return diagnose(failing, {where_of(record) for record in records}, known or bundled())


@pytest.mark.parametrize("style", sorted(CORRECT))
def test_each_seeded_style_is_correct_on_the_cases_its_seeded_hosts_run(scenarios, planned, style):
    globs = {glob for factory, selection, _ in SEEDED if factory.startswith(style) for glob in selection}
    records = run(scenarios, planned, f"{HOSTS}:{CORRECT[style]}", sorted(globs))
    assert [(r.id, r.verdict.reason) for r in records if not r.verdict.kind.ok] == []


@pytest.mark.parametrize(("factory", "selection", "defect"), SEEDED, ids=[seeded[0] for seeded in SEEDED])
def test_the_top_diagnosis_of_a_seeded_host_names_its_planted_flaw(scenarios, planned, factory, selection, defect):
    records = run(scenarios, planned, f"{HOSTS}:{factory}", selection)
    failing = [r for r in records if not r.verdict.kind.ok]
    diagnosis = diagnosis_of(records)
    assert failing and diagnosis.likely, factory
    top = diagnosis.likely[0]
    assert (top.defect, top.alike) == (defect, ())
    # The planted flaw explains (nearly) every failure: anything else would be a second flaw.
    assert top.count >= 0.9 * len(failing)
    assert top.representative is min(top.cases, key=lambda r: r.case.index)


def test_the_guard_gives_no_diagnosis_and_the_legacy_path_fails_like_its_flaws(scenarios, planned):
    globs = ("etf-compare-main-openai/*", "etf-compare-main-late-budget/*", "etf-compare-main-hooked/*")
    guarded = diagnosis_of(run(scenarios, planned, "reference:guarded", globs))
    assert guarded.likely == () and guarded.unexplained == ()
    legacy = diagnosis_of(run(scenarios, planned, "reference:legacy", globs))
    named = [likeness.defect for likeness in legacy.likely]
    # Its final check lives in a hook callback, before anything after the hooks; a refusal on the
    # asynchronous-preparation path never reaches the ledger.
    assert named[:2] == ["early-only", "no-settle"]
    assert sum(likeness.count for likeness in legacy.likely[:2]) > 0.9 * (
        sum(likeness.count for likeness in legacy.likely) + len(legacy.unexplained)
    )


# -- the matching itself, on made-up kill signatures --------------------------------------------


@pytest.fixture(scope="module")
def legacy_records(scenarios, planned):
    """Legacy on two recordings: what fails on a no-hook recording, and what passes on a hooked one."""
    return run(
        scenarios,
        planned,
        "reference:legacy",
        ("web-read-child-single-tool/*/evidence/*", "news-scan-child-anthropic-hooked/*/hook/*"),
    )


def signatures(records):
    return {signature_of(record): 1 for record in records}


def test_greedy_cover_takes_the_defect_explaining_most_first_then_the_rest(legacy_records):
    failing = [r for r in legacy_records if not r.verdict.kind.ok and r.verdict.kind is not VerdictKind.ERROR]
    kinds = sorted({r.case.mutation.kind for r in failing})
    assert len(kinds) >= 2
    first = [r for r in failing if r.case.mutation.kind != kinds[0]]
    second = [r for r in failing if r.case.mutation.kind == kinds[0]]
    known = KillSignatures(
        0, 0, (KillSignature("small", "a", signatures(second)), KillSignature("big", "b", signatures(first)))
    )
    diagnosis = diagnosis_of(legacy_records, known)
    assert [(likeness.defect, likeness.count, likeness.flaw) for likeness in diagnosis.likely] == [
        ("big", len(first), "b"),
        ("small", len(second), "a"),
    ]
    assert [r.id for r in diagnosis.likely[0].cases] == [r.id for r in sorted(first, key=lambda r: r.case.index)]
    assert {r.id for r in diagnosis.unexplained} == {r.id for r in legacy_records if not r.verdict.kind.ok} - {
        r.id for r in failing
    }


def test_a_defect_that_would_fail_where_the_run_passes_explains_nothing(legacy_records):
    failing = [r for r in legacy_records if not r.verdict.kind.ok]
    passing = [r for r in legacy_records if r.verdict.kind.ok]
    one_where = [r for r in failing if where_of(r) == where_of(failing[0])]
    # Predicts the failures at one boundary, and failures at every boundary where every case passed.
    at_passing = {
        signature_of(dataclasses.replace(r, verdict=dataclasses.replace(r.verdict, kind=VerdictKind.SURVIVED))): 1
        for r in passing
    }
    passed_only = {where_of(r) for r in passing} - {where_of(r) for r in failing}
    assert len(passed_only) >= 2
    broad = KillSignatures(0, 0, (KillSignature("broad", "fails everywhere", {**signatures(one_where), **at_passing}),))
    diagnosis = diagnosis_of(legacy_records, broad)
    assert diagnosis.likely == ()
    assert len(diagnosis.unexplained) == len(failing)
    # A `--select` run of the failing boundary alone holds none of those: there it is consistent.
    selected = diagnose(one_where, {where_of(r) for r in one_where}, broad)
    assert [(likeness.defect, likeness.count, likeness.shown) for likeness in selected.likely] == [
        ("broad", len(one_where), 1.0)
    ]
    assert 1 / (1 + len(passed_only)) < MIN_SHOWN


def test_defects_the_cases_cannot_tell_apart_are_named_together_and_ties_go_by_name(legacy_records):
    failing = [r for r in legacy_records if not r.verdict.kind.ok]
    known = KillSignatures(
        0, 0, tuple(KillSignature(name, name, signatures(failing)) for name in ("zulu", "alpha", "mike"))
    )
    diagnosis = diagnosis_of(legacy_records, known)
    assert [(likeness.defect, likeness.alike) for likeness in diagnosis.likely] == [("alpha", ("zulu", "mike"))]
    assert diagnosis_of(legacy_records, known) == diagnosis


def test_the_bundled_kill_signatures_tell_every_defect_from_the_rest_on_its_own_failures(monkeypatch):
    """Each defect's own failures, read back as a run's, are diagnosed as that defect — but for the
    three that cut a list at real sizes after the check, which fail every case of the one
    recording with over 40 tools alike and are named together."""
    monkeypatch.setattr(_diagnosis, "signature_of", lambda record: record.signature)
    known = bundled()
    wheres = {signature[:6] for defect in known.defects for signature in defect.signatures}
    alike = {"cap-after-check", "description-cut-after-check", "name-cut-after-check"}
    for defect in known.defects:
        cases = [_Fake(index, signature) for index, signature in enumerate(defect.signatures)]
        diagnosis = diagnose(cases, wheres, known)
        top = diagnosis.likely[0]
        assert top.defect == defect.defect or {top.defect, *top.alike} == alike, (defect.defect, top.defect)


@dataclasses.dataclass(frozen=True)
class _Fake:
    """A failing case reduced to what the matching reads of it: its plan index, id and signature."""

    index: int
    signature: tuple

    @property
    def id(self):
        return f"case-{self.index}"

    @property
    def case(self):
        return self
