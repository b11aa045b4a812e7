import datetime
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.common._errors import ExpectationsError
from toolsurface.harness._expectations import (
    Expectation,
    Standing,
    judge_expectations,
    load_expectations,
    planned_matches,
)
from toolsurface.harness._types import VerdictKind

TODAY = datetime.date(2026, 12, 2)
SURVIVED, KILLED = VerdictKind.SURVIVED, VerdictKind.KILLED
PLANNED = [
    "a/main/hooks/hook/add.replace:x",
    "a/main/hooks/post_seal/add.replace:x",
    "b/child/no-hooks/hook/rename.replace:y",
]


def entry(case="a/*/post_seal/*", verdict=SURVIVED, expires=TODAY):
    return Expectation(case, verdict, "seal stage is re-checked downstream", expires)


def standing(expectation, outcomes, planned=PLANNED, today=TODAY):
    (judged,) = judge_expectations([expectation], planned_matches([expectation], planned), outcomes, today)
    return judged


def test_an_entry_accepts_the_failing_cases_it_names_through_its_last_day():
    judged = standing(entry(), [(PLANNED[0], KILLED), (PLANNED[1], SURVIVED)])
    assert judged.standing is Standing.ACCEPTED
    assert judged.cases == (PLANNED[1],)
    assert judged.planned == 1


def test_an_entry_expires_the_day_after_its_date():
    judged = standing(entry(expires=TODAY - datetime.timedelta(days=1)), [(PLANNED[1], SURVIVED)])
    assert judged.standing is Standing.EXPIRED
    assert judged.why == "expired on 2026-12-01"
    assert not judged.standing.ok


def test_an_entry_whose_cases_now_pass_is_stale():
    judged = standing(entry(), [(PLANNED[1], KILLED)])
    assert judged.standing is Standing.STALE
    assert judged.why == "its 1 cases now end as killed, not survived"


def test_an_entry_for_another_failing_verdict_is_stale_and_accepts_nothing():
    judged = standing(entry(verdict=VerdictKind.ERROR), [(PLANNED[1], SURVIVED)])
    assert judged.standing is Standing.STALE
    assert judged.cases == ()


def test_an_entry_that_names_no_planned_case_is_stale_even_when_nothing_ran():
    judged = standing(entry(case="gone/*"), [])
    assert (judged.standing, judged.why) == (Standing.STALE, "names no planned case")


def test_an_entry_whose_cases_did_not_run_here_is_left_to_the_merge():
    judged = standing(entry(), [(PLANNED[0], KILLED)])
    assert judged.standing is Standing.UNJUDGED
    assert judged.standing.ok


@given(st.lists(st.sampled_from(list(VerdictKind)), min_size=1, max_size=len(PLANNED)))
def test_an_accepted_entry_accepts_exactly_the_cases_with_its_verdict(verdicts):
    outcomes = list(zip(PLANNED, verdicts, strict=False))
    judged = standing(entry(case="*"), outcomes)
    assert judged.cases == tuple(case for case, verdict in outcomes if verdict is SURVIVED)
    assert (judged.standing is Standing.ACCEPTED) == bool(judged.cases)


def write(tmp_path, text):
    path = tmp_path / "expectations.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("named", "plan", "broad"), [(10, 100, True), (9, 100, False), (1, 10, True), (1, 11, False), (0, 0, False)]
)
def test_an_entry_is_broad_when_it_names_a_tenth_of_the_plan_or_more(named, plan, broad):
    judged = standing(entry(), [])
    assert replace(judged, planned=named).broad(plan) is broad


def test_a_bare_star_is_broad():
    assert standing(entry("*"), []).broad(len(PLANNED))


def test_the_file_is_toml_with_dates_native_or_quoted(tmp_path):
    path = write(
        tmp_path,
        '[[expect]]\ncase = "a/*"\nverdict = "survived"\nreason = "known"\nexpires = 2027-01-31\n\n'
        '[[expect]]\ncase = "b/*"\nverdict = "error"\nreason = "flaky host"\nexpires = "2027-02-01"\n',
    )
    first, second = load_expectations(path)
    assert first == Expectation("a/*", SURVIVED, "known", datetime.date(2027, 1, 31))
    assert second.expires == datetime.date(2027, 2, 1) and second.verdict is VerdictKind.ERROR


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '[[expect]]\ncase = "a"\nverdict = "killed"\nreason = "r"\nexpires = 2027-01-01\n',
            "$.expect[0].verdict: 'killed' is not one of",
        ),
        (
            '[[expect]]\ncase = "a"\nverdict = "survived"\nexpires = 2027-01-01\n',
            "$.expect[0]: 'reason' is a required property",
        ),
        (
            '[[expect]]\ncase = "a"\nverdict = "survived"\nreason = " "\nexpires = 2027-01-01\n',
            "$.expect[0].reason: ' ' does not match",
        ),
        (
            '[[expect]]\ncase = "a"\nverdict = "survived"\nreason = "r"\nexpires = "soon"\n',
            "$.expect[0].expires: 'soon' is not a 'date'",
        ),
        (
            '[[expect]]\ncase = "a"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\nowner = "x"\n',
            "$.expect[0]: Additional properties",
        ),
        ("expect = [", "not valid TOML"),
    ],
)
def test_every_bad_entry_is_one_line_naming_the_file_and_path(tmp_path, text, problem):
    path = write(tmp_path, text)
    with pytest.raises(ExpectationsError) as raised:
        load_expectations(path)
    (line,) = raised.value.problems
    assert line.startswith(f"{path}:") and problem in line


def test_each_bad_entry_is_reported(tmp_path):
    body = '[[expect]]\ncase = "a"\nverdict = "nope"\nreason = "r"\nexpires = 2027-01-01\n'
    path = write(tmp_path, body + body.replace("nope", "survived").replace("2027-01-01", '"x"'))
    with pytest.raises(ExpectationsError) as raised:
        load_expectations(path)
    assert [line.split(": ")[0].rsplit(":", 1)[1] for line in raised.value.problems] == [
        "$.expect[0].verdict",
        "$.expect[1].expires",
    ]
