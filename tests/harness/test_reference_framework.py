"""`reference:framework` uses the shipped guard as a framework's middleware does, and passes every
case so. Each of its shapes is shown to matter: a guard flawed where only that shape reaches is
caught on it and passes on `reference:guarded`."""

import pytest

from tests.fixtures.planned import planned
from toolsurface.contract._guard import GuardedRequest
from toolsurface.contract._refusals import SummaryRefused
from toolsurface.harness._api import RunOptions
from toolsurface.harness._mutants import run_mutants
from toolsurface.harness._plan import select
from toolsurface.harness._reference._framework import FrameworkPipeline
from toolsurface.harness._reference._guarded import GuardedPipeline
from toolsurface.harness._runner import Runner
from toolsurface.harness._types import VerdictKind
from toolsurface.scenarios import load

#: A research request with facts, a tool loop, an entry request, an MCP host, a limit's edge.
SELECTED = (
    "etf-news-main-budget-exhausted/*",
    "etf-compare-main-tool-loop/*",
    "entry-main-portfolio-document/*",
    "etf-compare-main-mcp/*",
    "desk-research-main-mcp-128-tools@max_tools*",
)


@pytest.fixture(scope="module")
def scenarios():
    return load()


def run(scenarios, target, *patterns):
    return list(Runner(scenarios, target).run(select(planned(0), patterns)))


def flawed(request_type):
    """The framework pipeline driving a request guard with one flaw."""
    return type(request_type.__name__, (FrameworkPipeline,), {"request_type": request_type})()


def test_the_framework_host_passes_every_case_of_each_kind_of_recording(scenarios):
    records = run(scenarios, FrameworkPipeline(), *SELECTED)
    assert len(records) > 1500
    assert {r.verdict.kind for r in records} <= {VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT}, [
        (r.case.id, r.verdict.reason) for r in records if not r.verdict.kind.ok
    ][:3]
    # Its selection ends admission on every model call it makes.
    assert any(r.verdict.code == "not_selected" for r in records)


class KeepsNoAdmission(GuardedRequest):
    """Checks a selection, then holds the model call to every registered tool, in their order."""

    def admit(self, tools, checkpoint="admission"):
        super().admit(tools, checkpoint)
        self.admission = None


class ReadsDictMessagesOnly(GuardedRequest):
    """Finds an entry request's summary in dict messages only."""

    def check_summary(self, checkpoint, messages):
        super().check_summary(checkpoint, [m for m in messages if isinstance(m, dict)])


class FirstTextIsTheSummary(GuardedRequest):
    """Takes the first message with text for the summary, whatever it opens with."""

    def check_summary(self, checkpoint, messages):
        texts = [getattr(m, "content", None) if not isinstance(m, dict) else m.get("content") for m in messages]
        stated = next((text for text in texts if isinstance(text, str)), None)
        if self.summary is not None and stated != self.summary:
            self.refuse(SummaryRefused(checkpoint, self.summary, stated))


class SettlesInSettlingOnly(GuardedRequest):
    """Raises its refusals without settling them: only `settling` does."""

    def refuse(self, refusal):
        self.refusal = self.refusal or refusal
        raise refusal


@pytest.mark.parametrize(
    ("flaw", "pattern", "kind"),
    [
        (KeepsNoAdmission, "etf-compare-main-openai/main/no-hooks/post_seal/legit.*", VerdictKind.FALSE_REJECT),
        (ReadsDictMessagesOnly, "entry-main-portfolio-document/*/legit.*", VerdictKind.FALSE_REJECT),
        (FirstTextIsTheSummary, "entry-main-portfolio-document/*/legit.*", VerdictKind.FALSE_REJECT),
        # Refused at admission, before the run's `settling`: the refusal is left unsettled.
        (SettlesInSettlingOnly, "etf-compare-main-hooked/main/hooks/hook/add.replace:*", VerdictKind.SURVIVED),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else None,
)
def test_a_guard_flawed_where_only_the_framework_shape_reaches_is_caught_there(scenarios, flaw, pattern, kind):
    on_guarded = run(scenarios, type(flaw.__name__, (GuardedPipeline,), {"request_type": flaw})(), pattern)
    assert on_guarded and all(r.verdict.kind.ok for r in on_guarded)
    on_framework = run(scenarios, flawed(flaw), pattern)
    assert any(r.verdict.kind is kind for r in on_framework)


def test_a_mutant_only_the_framework_shape_kills_survives_on_the_guarded_pipeline_alone():
    options = RunOptions(target="reference:guarded", select=["etf-compare-main-openai/main/no-hooks/post_seal/legit.*"])
    functions = frozenset({"GuardedRequest.admit"})
    alone = run_mutants(options, functions=functions, operators=frozenset({"RemoveStatement"}))
    beside = run_mutants(
        options, functions=functions, operators=frozenset({"RemoveStatement"}), also=["reference:framework"]
    )
    kept = "self.admission = selection"
    assert {r.mutant.original: r.status for r in alone.results}[kept] == "Survived"
    killed = {r.mutant.original: r for r in beside.results}[kept]
    assert killed.status == "Killed" and killed.reason.startswith("on reference:framework: ")
    assert beside.target == "reference:guarded + reference:framework"


def test_a_mutant_that_makes_cases_error_is_not_run_on_the_next_target(monkeypatch):
    made = []

    class Noting(Runner):
        def __init__(self, scenarios, target, **options):
            made.append((target.request_type.__module__, isinstance(target, FrameworkPipeline)))
            super().__init__(scenarios, target, **options)

    monkeypatch.setattr("toolsurface.harness._mutants.Runner", Noting)
    options = RunOptions(target="reference:guarded", select=["etf-compare-main-openai/main/no-hooks/post_seal/legit.*"])
    run = run_mutants(
        options,
        functions=frozenset({"GuardedRequest.__init__"}),
        operators=frozenset({"RemoveStatement"}),
        also=["reference:framework"],
    )
    index = [r.mutant.original for r in run.results].index("self.owner = owner")
    crashed = run.results[index]
    assert crashed.status == "RuntimeError" and "AttributeError" in crashed.reason
    on_framework = {module.rsplit("_", 1)[-1] for module, framework in made if framework}
    # The mutants that pass on the guarded pipeline go on to the framework; the crash does not.
    assert on_framework and str(index) not in on_framework
