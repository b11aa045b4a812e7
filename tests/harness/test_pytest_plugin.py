"""`pytest --toolsurface`: every planned case an item, verdicts as outcomes, the gate on the session;
without the flag, a plugin that only adds its options.

Most runs use one small bundled scenario (449 cases, 20 of them equivalent) copied into pytester's
folder, so planning is instant; only the slow test runs the default matrix.
"""

import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from toolsurface import scenarios
from toolsurface.common._printable import printable
from toolsurface.harness._api import RunOptions, prepare

pytest_plugins = ["pytester"]

SCENARIO = "web-read-child-single-tool.json"
#: Six cases the `no-settle` defect lets survive: refused after sealing, never settled.
POST_SEAL_ADDS = "web-read-child-single-tool/*/post_seal/add.*"
NO_SETTLE = "reference:defect/no-settle"


def planned(**options):
    return tuple(
        prepare(RunOptions(red_target="none", scenarios=[scenarios.bundled_dir() / SCENARIO], **options)).cases
    )


def node_ids(cases):
    return [f"toolsurface::{case.id}" for case in cases]


@pytest.fixture
def project(pytester):
    shutil.copy(scenarios.bundled_dir() / SCENARIO, pytester.path / "web.json")
    return pytester


#: The plugin on the small scenario.
TOOLSURFACE = ("--toolsurface", "--toolsurface-scenarios", "web.json")


def run(pytester, *args):
    return pytester.runpytest(*TOOLSURFACE, *args)


def collected(pytester, *args):
    """The node ids of the items that would run, after `-k` and `--deselect`."""
    result = pytester.runpytest("--collect-only", "-q", *args)
    return [line for line in result.outlines if "::" in line]


def gate_section(result):
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ toolsurface gate =+", line))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start + 1 : end]


def expectations(pytester, *entries):
    text = "".join(
        f'[[expect]]\ncase = "{case}"\nverdict = "{verdict}"\nreason = "{reason}"\nexpires = {expires}\n\n'
        for case, verdict, reason, expires in entries
    )
    return pytester.makefile(".toml", expectations=text).name


@pytest.mark.slow
def test_the_default_matrix_at_two_points_runs_every_case_as_an_item_over_two_workers(pytester):
    # Every kind at one point and three kinds at the last (about 1,500 items, from every recording
    # that gets that far): most cases derived from the contract are at the last point, thousands.
    points = ["*/evidence/*", "*/post_seal/add.*", "*/post_seal/delete.*", "*/post_seal/reorder.*"]
    cases = prepare(RunOptions(red_target="none", select=points)).cases
    selected = [word for point in points for word in ("--toolsurface-select", point)]
    result = pytester.runpytest_subprocess("--toolsurface", *selected, "-n", "2")
    outcomes = result.parseoutcomes()
    assert result.ret == pytest.ExitCode.OK
    assert outcomes["passed"] + outcomes["skipped"] == len(cases)
    assert outcomes["skipped"] == sum(case.equivalent for case in cases)
    assert gate_section(result)[0].startswith(f"passed: {len(cases)} cases (killed ")


def test_item_ids_are_the_case_ids_in_plan_order(project):
    assert collected(project, *TOOLSURFACE) == node_ids(planned())


def test_the_same_seed_collects_the_same_items(project):
    seeded = collected(project, *TOOLSURFACE, "--toolsurface-seed", "3")
    assert seeded == collected(project, *TOOLSURFACE, "--toolsurface-seed", "3") == node_ids(planned(seed=3))
    assert seeded != collected(project, *TOOLSURFACE)


def test_keyword_select_and_deselect_narrow_the_items(project):
    cases = planned()
    by_keyword = [case for case in cases if "post_seal" in case.id and "in_place" in case.id]
    assert collected(project, *TOOLSURFACE, "-k", "post_seal and in_place") == node_ids(by_keyword)
    assert collected(project, *TOOLSURFACE, "--toolsurface-select", "*/evidence/*") == node_ids(
        planned(select=["*/evidence/*"])
    )
    # The first id holds `/`, `:`, `@` and `.`: a deselect prefix is matched as it is.
    first = node_ids(cases)[0]
    assert set("/:@.") <= set(first)
    assert collected(project, *TOOLSURFACE, "--deselect", first) == node_ids(cases)[1:]


def test_last_failed_reruns_only_the_cases_that_failed(project):
    assert (
        run(project, "--toolsurface-target", NO_SETTLE, "--toolsurface-select", POST_SEAL_ADDS).ret
        == pytest.ExitCode.TESTS_FAILED
    )
    rerun = run(project, "--lf")
    assert rerun.parseoutcomes() == {"passed": 6, "deselected": 443}


def test_a_failing_target_fails_its_items_with_the_evidence_and_a_reproduce_command(project):
    failing = planned(select=[POST_SEAL_ADDS])
    result = project.runpytest_subprocess(
        *TOOLSURFACE, "--toolsurface-target", NO_SETTLE, "--toolsurface-select", POST_SEAL_ADDS, "-n", "2"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"failed": len(failing)}
    output = result.stdout.str()
    for case in failing:
        assert f"FAILED toolsurface::{case.id}" in output
        reproduce = shlex.join(
            ["toolsurface", "reproduce", case.id, "--target", NO_SETTLE, "--seed", "0", "--scenarios", "web.json"]
        )
        assert f"reproduce  {reproduce}" in output
    result.stdout.fnmatch_lines(
        ["survived: refused, but reservation child:* was never settled*", "ledger     child: reserve req_child_*"]
    )
    assert "Traceback" not in output and "_pytest_plugin.py" not in output and "_pytest_cases.py" not in output
    # The controller judged the outcomes its workers reported.
    assert (
        gate_section(result)[0]
        == f"FAILED: {len(failing)} cases (survived {len(failing)}), 0 of them accepted; expectations: 0 "
        "stale, 0 expired"
    )


def test_a_timeout_makes_an_error_of_a_hanging_target(project):
    project.makepyfile(
        slowhost="import time\n\nclass Slow:\n    def run(self, scenario, ports):\n        time.sleep(5)\n"
    )
    one = planned()[0].id
    result = run(
        project, "--toolsurface-target", "slowhost:Slow", "--toolsurface-timeout", "0.2", "--toolsurface-select", one
    )
    assert result.parseoutcomes() == {"failed": 1}
    result.stdout.fnmatch_lines(["error: target timed out"])


def test_an_accepted_expectation_turns_its_failures_into_xfails(project):
    reason = "no-settle drops post-seal settlements: TS-12"
    accepted = expectations(project, (POST_SEAL_ADDS, "survived", reason, "2999-12-31"))
    result = run(
        project,
        "--toolsurface-target",
        NO_SETTLE,
        "--toolsurface-select",
        POST_SEAL_ADDS,
        "--toolsurface-expectations",
        accepted,
        "-rx",
    )
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"xfailed": 6}
    result.stdout.fnmatch_lines([f"XFAIL toolsurface::* - accepted as survived until 2999-12-31: {reason}"])
    assert gate_section(result) == [
        "passed: 6 cases (survived 6), 6 of them accepted; expectations: 0 stale, 0 expired"
    ]


def test_a_broad_expectation_is_flagged_in_the_gate_section(project):
    broad = expectations(project, ("*", "survived", "the whole old path", "2999-12-31"))
    result = run(
        project,
        "--toolsurface-target",
        NO_SETTLE,
        "--toolsurface-select",
        POST_SEAL_ADDS,
        "--toolsurface-expectations",
        broad,
    )
    assert result.ret == pytest.ExitCode.OK and result.parseoutcomes() == {"xfailed": 6}
    assert gate_section(result) == [
        "passed: 6 cases (survived 6), 6 of them accepted; expectations: 0 stale, 0 expired",
        "broad: case '*' (survived): names 449 of the 449 planned cases, 6 of them survived here",
    ]


def test_an_expectation_of_another_verdict_accepts_nothing(project):
    other = expectations(project, (POST_SEAL_ADDS, "error", "not what happens", "2999-12-31"))
    result = run(
        project,
        "--toolsurface-target",
        NO_SETTLE,
        "--toolsurface-select",
        POST_SEAL_ADDS,
        "--toolsurface-expectations",
        other,
    )
    assert result.parseoutcomes() == {"failed": 6}
    assert f"stale: case '{POST_SEAL_ADDS}' (error): its 6 cases now end as survived, not error" in gate_section(result)


def test_an_expired_expectation_fails_its_cases_and_the_gate(project):
    expired = expectations(project, (POST_SEAL_ADDS, "survived", "was going to be fixed", "2020-01-01"))
    result = run(
        project,
        "--toolsurface-target",
        NO_SETTLE,
        "--toolsurface-select",
        POST_SEAL_ADDS,
        "--toolsurface-expectations",
        expired,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"failed": 6}
    result.stdout.fnmatch_lines(
        ["expired    the acceptance of this survived case expired on 2020-01-01: was going to be fixed"]
    )
    assert f"expired: case '{POST_SEAL_ADDS}' (survived): expired on 2020-01-01" in gate_section(result)


def test_an_expectation_naming_no_planned_case_fails_a_session_whose_items_all_xfail(project):
    entries = expectations(
        project,
        (POST_SEAL_ADDS, "survived", "tracked", "2999-12-31"),
        ("renamed-scenario/*", "error", "left over", "2999-12-31"),
    )
    result = run(
        project,
        "--toolsurface-target",
        NO_SETTLE,
        "--toolsurface-select",
        POST_SEAL_ADDS,
        "--toolsurface-expectations",
        entries,
    )
    assert result.parseoutcomes() == {"xfailed": 6}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert gate_section(result) == [
        "FAILED: 6 cases (survived 6), 6 of them accepted; expectations: 1 stale, 0 expired",
        "stale: case 'renamed-scenario/*' (error): names no planned case",
    ]


def test_an_expectation_whose_cases_now_pass_fails_a_session_whose_items_all_pass(project):
    entries = expectations(project, (POST_SEAL_ADDS, "survived", "fixed since", "2999-12-31"))
    result = run(project, "--toolsurface-select", POST_SEAL_ADDS, "--toolsurface-expectations", entries)
    assert result.parseoutcomes() == {"passed": 6}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f"stale: case '{POST_SEAL_ADDS}' (survived): its 6 cases now end as killed, not survived" in gate_section(
        result
    )


def test_the_project_config_plans_the_run_and_its_thresholds_gate_it(project):
    project.makepyprojecttoml(
        '[tool.toolsurface]\nscenarios = ["web.json"]\nselect = '
        '["*/evidence/*"]\n\n[tool.toolsurface.thresholds]\nmin_cases = 1000\n'
    )
    result = project.runpytest("--toolsurface")
    evidence = planned(select=["*/evidence/*"])
    in_scope = sum(not case.equivalent for case in evidence)
    assert result.parseoutcomes()["passed"] == in_scope
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f"shortfall: {in_scope} in-scope cases ran, fewer than min_cases = 1000" in gate_section(result)
    # A flag wins over the config.
    assert collected(project, "--toolsurface", "--toolsurface-select", "*/post_seal/*") == node_ids(
        planned(select=["*/post_seal/*"])
    )


def test_the_entry_point_loads_no_engine_and_no_dependency():
    # A whole session that never imports the engine is tested in a project of its own (tests/test_install.py).
    code = "import sys, toolsurface.harness._pytest_plugin; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    # Of toolsurface, only the module itself, the packages on its path and the options' declaration.
    assert {name for name in loaded if name.partition(".")[0] == "toolsurface"} == {
        "toolsurface", "toolsurface.harness", "toolsurface.harness._pytest_plugin", "toolsurface.harness._options",
    }  # fmt: skip
    assert not {name.partition(".")[0] for name in loaded} & {
        "hypothesis",
        "libcst",
        "jsonschema",
        "orjson",
        "rich",
        "typer",
    }


def test_an_option_without_the_flag_is_a_usage_error(pytester):
    result = pytester.runpytest("--toolsurface-seed", "3", "--toolsurface-select", "*")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == [
        "ERROR: toolsurface: --toolsurface-seed, --toolsurface-select given without --toolsurface, which "
        "collects the cases"
    ]


def test_a_bad_value_from_the_config_names_the_file_and_key(project):
    path = project.makepyprojecttoml('[tool.toolsurface]\ntarget = "reference:nope"\n')
    result = run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (problem,) = [line for line in result.errlines if line.strip()]
    assert problem.startswith(
        f"ERROR: toolsurface: {path}:[tool.toolsurface].target: 'reference:nope': no such reference target (known: "
    )


def test_without_the_flag_the_plugin_collects_nothing(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    assert collected(pytester) == ["test_plain.py::test_plain"]
    result = pytester.runpytest()
    assert result.parseoutcomes() == {"passed": 1}
    assert "toolsurface gate" not in result.stdout.str()


def test_with_the_flag_the_cases_join_the_ordinary_tests(project):
    project.makepyfile(test_plain="def test_plain():\n    pass\n")
    assert collected(project, *TOOLSURFACE) == ["test_plain.py::test_plain", *node_ids(planned())]


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        (
            "--toolsurface-target",
            "reference:nope",
            "--toolsurface-target 'reference:nope': no such reference target (known: *)",
        ),
        (
            "--toolsurface-red-target",
            "nope",
            "--toolsurface-red-target 'nope': expected 'reference:<name>', 'package.module:factory' or "
            "'<framework>:package.module:factory'",
        ),
        ("--toolsurface-seed", "-1", "--toolsurface-seed -1 must be an integer from 0 to 2**63 - 1"),
        ("--toolsurface-select", "nothing/*", "--toolsurface-select 'nothing/*' matched none of the 449 planned cases"),
        (
            "--toolsurface-expectations",
            "missing.toml",
            "--toolsurface-expectations missing.toml: cannot read: No such file or directory",
        ),
        (
            "--toolsurface-config",
            "missing.toml",
            "--toolsurface-config missing.toml: cannot read: No such file or directory",
        ),
    ],
)
def test_bad_input_is_a_one_line_usage_error(project, flag, value, message):
    result = run(project, flag, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    problems = [line for line in result.errlines if line.strip()]
    assert len(problems) == 1
    result.stderr.fnmatch_lines([f"ERROR: toolsurface: {message}"])
    assert "Traceback" not in result.stderr.str()


def test_the_header_and_reports_name_the_target_by_its_spec(project):
    # The reference guard's `name` comes with the class; the legacy path is what runs.
    project.makepyfile(
        impostor="from toolsurface.harness._reference import GuardedPipeline, LegacyPipeline\n\n\n"
        "class Impostor(GuardedPipeline):\n    def run(self, scenario, ports):\n        return "
        "LegacyPipeline().run(scenario, ports)\n"
    )
    result = run(project, "--toolsurface-target", "impostor:Impostor", "--toolsurface-select", "*/post_seal/delete.*")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "toolsurface: 6 of 449 planned cases on impostor:Impostor (red target none), seed 0" in output
    assert "target     impostor:Impostor" in output and "reference:guarded" not in output


def test_item_ids_show_a_scenario_s_control_characters_escaped(project):
    document = json.loads((scenarios.bundled_dir() / SCENARIO).read_text())
    name = "q\x1b]0;pwned\x07\x1b[2J\nx"
    document["contract"]["admitted"][0]["input_schema"] = {
        "type": "object",
        "properties": {name: {"type": "string"}},
        "required": [name],
    }
    (project.path / "web.json").write_text(json.dumps(document))
    cases = prepare(RunOptions(red_target="none", scenarios=[project.path / "web.json"])).cases
    hostile = [case for case in cases if "pwned" in case.id]
    assert hostile and all("\x1b" in case.id for case in hostile)
    expected = [f"toolsurface::{printable(case.id)}" for case in hostile]
    assert collected(project, *TOOLSURFACE, "-k", "pwned") == expected
    result = run(project, "--toolsurface-target", "reference:legacy", "-k", "pwned", "--deselect", expected[0])
    assert result.parseoutcomes() == {"failed": len(hostile) - 1, "deselected": len(cases) - len(hostile) + 1}
    output = result.stdout.str() + result.stderr.str()
    assert "\x1b" not in output and "\x07" not in output and f"FAILED {expected[1]}" in output
