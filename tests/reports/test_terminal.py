import io
from dataclasses import replace

from rich.console import Console

from toolsurface.reports import THEME, Audit, RunSummary


def render(summary):
    console = Console(file=io.StringIO(), width=100, color_system=None, theme=THEME)
    console.print(summary, soft_wrap=True)
    return console.file.getvalue()


def test_a_passing_run_says_pass_and_counts_controlled_cases(audit_of):
    text = render(RunSummary(audit_of(select=["web-read-child-single-tool/*/evidence/*"]), "out/results.json"))
    assert "toolsurface — reference:guarded (seed 0)" in text
    assert "PASS: 56/56 in-scope checks pass: no survivors, false rejections or errors" in text
    assert "red target reference:legacy: 50 of 60 cases fail there; 50 controlled (RED there, GREEN here)" in text


def test_a_failing_run_shows_each_cause_by_a_representative_with_its_diff_and_command_unwrapped(audit_of):
    audit = audit_of(
        target="reference:legacy", red_target="none", select=["web-read-child-single-tool/*/evidence/delete.*"]
    )
    text = render(RunSummary(audit, "out/results.json"))
    (cause,) = audit.causes
    case = cause.representative.id
    assert "    survived × 6: dispatched N request(s) with the change: removed N tools\n" in text
    assert (
        f"             {case}\n             dispatched 1 request(s) with the change: removed "
        "'market__web_read' (was at 0)\n" in text
    )
    assert "               removed 'market__web_read' (was at 0)\n" in text
    assert f"             toolsurface reproduce {case} --target reference:legacy --seed 0\n" in text
    assert text.count("toolsurface reproduce") == 1 + len(audit.diagnosis.likely)
    assert "FAIL: 6 of 6 cases failed; results: out/results.json" in text


def test_past_ten_causes_the_summary_says_how_many_more_and_where(audit_of):
    audit = audit_of(target="reference:legacy", red_target="none", select=["web-read-child-single-tool/*/evidence/*"])
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()  # noqa: SIM905
    failing = [case for case in audit.results.cases if not case.verdict.kind.ok]
    assert len(failing) >= len(words)
    renamed = {
        case.id: replace(case, verdict=replace(case.verdict, reason=f"broken {words[n % len(words)]}"))
        for n, case in enumerate(failing)
    }
    cases = tuple(renamed.get(case.id, case) for case in audit.results.cases)
    regrouped = Audit(replace(audit.results, cases=cases))
    text = render(RunSummary(regrouped, "out/results.json"))
    shown, rest = regrouped.causes[:10], regrouped.causes[10:]
    assert text.count("toolsurface reproduce") == 10 + len(regrouped.diagnosis.likely)
    assert all(f"× {cause.count}: {cause.reason}\n" in text for cause in shown)
    assert not any(f": {cause.reason}\n" in text for cause in rest)
    more = sum(cause.count for cause in rest)
    assert f"… and 2 more causes ({more} cases): the audit lists them, out/results.json has every case\n" in text


def test_defects_run_with_the_cases_are_summed_up(audit_of):
    audit = audit_of(select=["web-read-child-single-tool/*/evidence/*"], defects=True)
    text = render(RunSummary(audit, "out/results.json"))
    alive = [row.name for row in audit.defects if not row.kills]
    assert alive and "no-settle" not in alive
    assert (
        f"reference defects: {len(audit.defects) - len(alive)} of {len(audit.defects)} killed; not "
        f"killed: {', '.join(alive)}" in text
    )


def test_accepted_failures_are_counted_and_a_broad_expectation_flagged(recorded, tmp_path_factory):
    known = tmp_path_factory.mktemp("known") / "known.toml"
    known.write_text('[[expect]]\ncase = "*"\nverdict = "survived"\nreason = "old path"\nexpires = 2099-01-01\n')
    record = recorded(
        target="reference:legacy",
        red_target="none",
        select=["web-read-child-single-tool/*/evidence/*"],
        expectations=known,
    )
    text = render(RunSummary(Audit(record), "out/results.json"))
    survived, planned = record.summary.totals.survived, record.run.planned
    assert (
        f"PASS: 6/56 in-scope checks pass; {survived} survived, all accepted\n" in text and "no survivors" not in text
    )
    broad = (
        f"expectation * (survived): names {planned} of the {planned} planned cases (100%); {survived} of them "
        "survived here"
    )
    assert f"       broad {broad}\n" in text


def test_a_failing_case_id_from_a_scenario_is_shown_escaped(audit_of):
    audit = audit_of(
        target="reference:legacy", red_target="none", select=["web-read-child-single-tool/*/evidence/delete.*"]
    )
    (first, *rest) = audit.results.cases
    hostile = replace(
        first,
        case=replace(first.case, id=first.id + "\x1b]0;pwned\x07\n"),
        verdict=replace(first.verdict, reason="a\rb"),
    )
    text = render(RunSummary(Audit(replace(audit.results, cases=(hostile, *rest))), "out/results.json"))
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert f"    survived × 1: a b\n             {first.id}\\x1b]0;pwned\\x07\\n\n             a\\rb\n" in text
    assert f"toolsurface reproduce '{first.id}\\x1b]0;pwned\\x07\\n' --target reference:legacy --seed 0\n" in text


def test_a_failing_run_opens_with_the_flaws_it_fails_like_before_its_causes(audit_of):
    globs = [
        "etf-compare-main-late-budget/*/hook/*",
        "etf-compare-main-hooked/*/post_seal/*",
        "etf-compare-main-openai/*/post_seal/*",
    ]
    audit = audit_of(target="reference:legacy", red_target="none", select=globs)
    text = render(RunSummary(audit, "out/results.json"))
    likely = audit.diagnosis.likely
    assert [likeness.defect for likeness in likely[:2]] == ["early-only", "no-settle"]
    head = "likely flaws (the reference defects these failures look like; see the causes below for why each failed):\n"
    assert text.index(head) < text.index(f"× {audit.causes[0].count}: ")
    for likeness in likely:
        case = likeness.representative
        assert (
            f"  fails like {likeness.defect} ({likeness.flaw}): {likeness.count:,} cases\n"
            f"             e.g. {case.id}\n"
            f"             {audit.reproduce(case)}\n"
        ) in text
    if audit.diagnosis.unexplained:
        assert f"  {len(audit.diagnosis.unexplained):,} failing cases fail like no reference defect, in " in text
    # Only an id and the command that holds it may run past 160 characters: neither can be cut.
    assert [line for line in text.splitlines() if len(line) > 160 and "/" not in line] == []


def test_a_passing_run_shows_no_likely_flaws(audit_of):
    audit = audit_of(select=["web-read-child-single-tool/*/evidence/*"])
    assert audit.diagnosis.likely == ()
    assert "likely flaws" not in render(RunSummary(audit, "out/results.json"))
