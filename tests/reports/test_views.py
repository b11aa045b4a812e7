import io

from rich.console import Console

from toolsurface.harness._api import RunOptions, defect_kills, reproduce
from toolsurface.reports import THEME, DefectMatrix, ReproductionView


def render(renderable):
    console = Console(file=io.StringIO(), width=200, color_system=None, theme=THEME)
    console.print(renderable, soft_wrap=True)
    return console.file.getvalue()


def test_reproduction_shows_gateway_ledger_and_the_hostile_text_as_text():
    options = RunOptions(target="tests.fixtures.user_targets:Crashing")
    case = "web-read-child-single-tool/child/no-hooks/evidence/delete.replace:first:market__web_read"
    text = render(ReproductionView(reproduce(options, case)))
    assert "change   removed 'market__web_read' (was at 0)\n" in text
    assert "gateway  no dispatch\n" in text
    assert "  child: reserve req_child_0002\n" in text
    assert "crash    RuntimeError: adapter bug\n" in text and "Traceback" in text
    assert "verdict  error — target crashed: RuntimeError: adapter bug" in text


def test_defect_matrix_names_every_defect_and_its_first_killer():
    matrix = DefectMatrix(defect_kills(RunOptions(select=["etf-compare-main-openai/*/context_fit/*"])))
    text = render(matrix)
    for name, killers in matrix.kills.items():
        assert name in text
        if killers:
            assert killers[0].case.id in text
    # This slice alone cannot kill the defects that need hooks or in-place edits elsewhere.
    assert "hook-control" in matrix.alive
    assert f"not killed by any case: {', '.join(matrix.alive)}" in text


def test_defect_matrix_keeps_each_case_id_on_one_line_at_80_columns():
    matrix = DefectMatrix(defect_kills(RunOptions(select=["etf-compare-main-openai/*/context_fit/*"])))
    # As the command prints it: soft wrap, so the terminal wraps a long line and a copy takes it whole.
    console = Console(file=io.StringIO(), width=80, color_system=None, theme=THEME, soft_wrap=True)
    console.print(matrix)
    lines = console.file.getvalue().splitlines()
    for killers in matrix.kills.values():
        if killers:
            assert any(line.endswith(killers[0].case.id) for line in lines), killers[0].case.id


def test_a_surviving_mutant_shows_its_diff_and_reason_with_bidi_and_control_characters_escaped():
    from toolsurface.harness._mutants import MutantResult, MutantRun
    from toolsurface.reports._mutants import MutantsView
    from toolsurface.scan._seams import SourceMutant

    diff = "--- a/guard.py\n+++ b/guard.py\n-    check(tools)  # \u202e }\u2066\n+    pass  # \x1b]0;t\x07\n"
    mutant = SourceMutant(
        "RemoveCheck@3:5", "RemoveCheck", "check \u2028removed", 3, 5, 3, 17, "check(tools)", "pass", "", diff
    )
    run = MutantRun(
        "reference:guarded", "guard\u202e.py", "", 4, (MutantResult(mutant, "Survived", None, "no case \x1b[2Jfailed"),)
    )
    text = render(MutantsView(run))
    assert not {char for char in text if not char.isprintable() and char != "\n"}
    assert "-    check(tools)  # \\u202e }\\u2066\n+    pass  # \\x1b]0;t\\x07\n" in text
    assert "RemoveCheck@3:5  check \\u2028removed\n" in text and "no case \\x1b[2Jfailed\n" in text
    assert "mutants of guard\\u202e.py on reference:guarded" in text
