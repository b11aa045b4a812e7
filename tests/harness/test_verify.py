"""`verify` re-runs a drawn sample of a file's cases: an honest file passes, a verdict forged so that
the file still holds together is found, and a file that names other recordings or cases than its
plan is refused before anything runs."""

import dataclasses
import fnmatch
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.fixtures.forgery import TIMED_OUT, first_killed, forge
from toolsurface.common._errors import UsageError
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._results import open_results, write_results
from toolsurface.harness._types import Verdict, VerdictKind
from toolsurface.harness._verify import literal, sample, verify

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "scenarios" / "bundled"
#: One scenario's cases, paired: killed, passed and equivalent ones, and survivors on the red target.
SELECT = ["web-read-child-single-tool/*"]


class Shown:
    """A progress that records what it was told."""

    def __init__(self):
        self.totals, self.done = [], 0

    def __call__(self, total):
        self.totals.append(total)
        return self.advance

    def advance(self):
        self.done += 1


def written(folder, **options):
    session = prepare(RunOptions(select=SELECT, **options))
    return write_results(folder, session, session.results())


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    return written(tmp_path_factory.mktemp("honest"))


@pytest.fixture
def copy(tmp_path, honest):
    path = tmp_path / "results.json"
    shutil.copy(honest, path)
    return path


def eligible_ids(path):
    return [case.id for case in open_results(path).cases if case.verdict.kind is not VerdictKind.EQUIVALENT]


def test_an_honest_file_passes_and_each_sampled_case_runs_once(honest):
    shown = Shown()
    found = verify(open_results(honest), 12, seed=5, progress=shown)
    assert found.ok and found.differences == ()
    assert (found.sampled, found.eligible, found.seed) == (12, len(eligible_ids(honest)), 5)
    assert (found.target, found.red_target) == ("reference:guarded", "reference:legacy")
    assert shown.totals == [12] and shown.done == 12


def test_the_seed_draws_the_sample_from_the_non_equivalent_cases_in_file_order(honest):
    results = open_results(honest)
    eligible = eligible_ids(honest)
    first, count = sample(results, 10, seed=1)
    ids = [record.id for record in first]
    assert count == len(eligible) > 10 and len(ids) == 10 and set(ids) <= set(eligible)
    assert ids == [case_id for case_id in eligible if case_id in ids]
    assert [record.id for record in sample(results, 10, seed=1)[0]] == ids
    assert [record.id for record in sample(results, 10, seed=2)[0]] != ids
    # More than it holds: every one of them.
    assert [record.id for record in sample(results, 10**6, seed=1)[0]] == eligible


def test_a_forged_verdict_is_found_with_its_recorded_and_re_run_verdicts_and_reproduce_command(copy):
    (forged_id,) = forge(copy, cases=first_killed)
    results = open_results(copy)  # the forgery holds together
    found = verify(results, 10**6, seed=0, progress=Shown())
    assert not found.ok and found.sampled == found.eligible
    (difference,) = found.differences
    assert difference.case_id == forged_id
    assert (difference.recorded, difference.rerun.kind) == (TIMED_OUT, VerdictKind.KILLED)
    assert difference.recorded_red == difference.rerun_red is not None
    assert (
        difference.reproduce
        == results.run.reproduce(forged_id)
        == f"toolsurface reproduce {forged_id} --target reference:guarded --seed 0"
    )


def test_a_forged_red_verdict_is_found_too(copy):
    def red_timed_out(cases):
        at = next(i for i, case in enumerate(cases) if case.red_verdict.kind is VerdictKind.SURVIVED)
        return (
            *cases[:at],
            dataclasses.replace(
                cases[at], red_verdict=Verdict(VerdictKind.ERROR, "target timed out", ReasonCode.TIMED_OUT)
            ),
            *cases[at + 1 :],
        )

    forge(copy, cases=red_timed_out)
    (difference,) = verify(open_results(copy), 10**6, seed=0, progress=Shown()).differences
    assert difference.recorded == difference.rerun
    assert (difference.recorded_red.kind, difference.rerun_red.kind) == (VerdictKind.ERROR, VerdictKind.SURVIVED)


@pytest.fixture
def recordings(tmp_path):
    folder = tmp_path / "recordings"
    folder.mkdir()
    shutil.copy(BUNDLED / "web-read-child-single-tool.json", folder)
    return folder


def test_a_recording_that_changed_since_the_run_is_refused_by_its_place_in_the_file(tmp_path, recordings):
    path = written(tmp_path / "out", scenarios=[recordings])
    scenario = recordings / "web-read-child-single-tool.json"
    document = json.loads(scenario.read_text())
    document["description"] += " (edited)"
    scenario.write_text(json.dumps(document))
    with pytest.raises(UsageError) as refused:
        verify(open_results(path), 5, seed=0, progress=Shown())
    message = str(refused.value)
    assert message.startswith(
        f"{path}:$.run.scenarios[0].digest: recording 'web-read-child-single-tool' loaded from {scenario} has digest "
    )
    assert message.endswith("the run used: verify on the recordings the file was run on")


def test_a_recording_that_is_gone_is_refused(tmp_path, recordings):
    path = written(tmp_path / "out", scenarios=[recordings])
    (recordings / "web-read-child-single-tool.json").unlink()
    shutil.copy(BUNDLED / "etf-compare-main-openai.json", recordings)
    with pytest.raises(
        UsageError,
        match=re.escape(
            f"{path}:$.run.scenarios[0]: recording 'web-read-child-single-tool' "
            f"is not among the scenarios loaded from {recordings}"
        ),
    ):
        verify(open_results(path), 5, seed=0, progress=Shown())


@pytest.mark.parametrize(("renamed", "size"), [("one", 10**6), ("every", 1)])
def test_a_sampled_case_the_plan_does_not_hold_is_refused(copy, renamed, size):
    def rename(cases):
        at = next(i for i, case in enumerate(cases) if case.verdict.kind is not VerdictKind.EQUIVALENT)
        chosen = range(len(cases)) if renamed == "every" else [at]
        return tuple(
            dataclasses.replace(c, case=dataclasses.replace(c.case, id=c.id + "-x")) if i in chosen else c
            for i, c in enumerate(cases)
        )

    forge(copy, cases=rename)
    with pytest.raises(
        UsageError,
        match=(
            r": case '[^']+-x' is not in the plan that its recordings and seed 0 give: "
            r"the file was edited, or written by another toolsurface than "
        ),
    ):
        verify(open_results(copy), size, seed=0, progress=Shown())


def test_a_target_the_file_names_that_cannot_load_is_named_where_the_file_holds_it(copy):
    forge(copy, run=lambda run: dataclasses.replace(run, target="reference:nope"))
    with pytest.raises(UsageError, match=re.escape(f"{copy}:$.run.target: 'reference:nope'")):
        verify(open_results(copy), 1, seed=0, progress=Shown())


@pytest.mark.parametrize("case_id", ["plain/id:with.dots", "a*b", "what?", "x[1]y", "[*?]"])
def test_a_case_id_is_selected_as_itself(case_id):
    pattern = literal(case_id)
    assert fnmatch.fnmatchcase(case_id, pattern)
    assert not any(
        fnmatch.fnmatchcase(other, pattern)
        for other in ("", case_id + "z", "z" + case_id, case_id.replace(case_id[-1], "Q"))
    )
