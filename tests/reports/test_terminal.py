import io

from rich.console import Console

from harness import RunOptions, prepare
from reports import THEME, RunSummary


def render(summary):
    console = Console(file=io.StringIO(), width=100, color_system=None, theme=THEME)
    console.print(summary, soft_wrap=True)
    return console.file.getvalue()


def summary_of(options):
    session = prepare(options)
    results = list(session.results())
    return RunSummary.build(
        results,
        target=session.target_name,
        red_target=session.red_target_name,
        seed=options.seed,
        reproduce={r.case.id: options.reproduce_command(r.case.id) for r in results},
        results_path="out/results.json",
    )


def test_a_passing_run_says_pass_and_counts_controlled_cases():
    text = render(summary_of(RunOptions(select=["web-read-child-single-tool/*/evidence/*"])))
    assert "toolsurface — reference:guarded (seed 0)" in text
    assert "PASS: 52/52 cases — no survivors, false rejections or errors" in text
    assert "red target reference:legacy: 42 of 52 cases fail there; 42 controlled (RED there, GREEN here)" in text


def test_a_failing_run_lists_each_failure_with_its_command_unwrapped():
    options = RunOptions(target="reference:legacy", red_target="none", select=["web-read-child-single-tool/*/evidence/delete.*"])
    text = render(summary_of(options))
    case = "web-read-child-single-tool/child/no-hooks/evidence/delete.replace:first:market__web_read"
    assert f"    survived {case}\n" in text
    assert f"             toolsurface reproduce {case} --target reference:legacy --seed 0\n" in text
    assert "FAIL: 6 of 6 cases failed; results: out/results.json" in text
