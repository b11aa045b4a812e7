"""`pytest --toolsurface`: every planned case as a test item of its own.

Registered by the plugin's entry point (`_pytest_plugin`) only when `--toolsurface` is given.
Each process (the controller and every xdist worker) prepares the same session from the same
flags, so all of them collect the same items in plan order, with the case id in the node id
(`toolsurface::<case id>`). Each item reports its verdict in its `user_properties`; the
controller gathers them from the reports it receives and judges the whole run with the gate —
stale or expired expectations and threshold shortfalls fail the session even when every item
passed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from toolsurface.common._errors import ToolsurfaceError
from toolsurface.common._printable import printable
from toolsurface.scenarios import ScenarioError

from ._api import RunOptions, Session, prepare
from ._config import ProjectConfig, load_project_config
from ._expectations import Expectation, Standing
from ._gate import Gate
from ._options import BY_NAME, OPTIONS, pytest_flag_for
from ._targets import NO_TARGET
from ._types import Case, CaseRecord, Tally, VerdictKind

#: The session this process prepared from the flags, shared by the collector, the items and the gate.
PREPARED = pytest.StashKey[Session]()
#: The collector every case item hangs under: its name is the first part of each node id.
COLLECTOR = "toolsurface"
VERDICT_PROPERTY = "toolsurface_verdict"
RED_VERDICT_PROPERTY = "toolsurface_red_verdict"
EQUIVALENT_REASON = "equivalent: the mutation leaves the surface canonically unchanged"


def register(config: pytest.Config) -> None:
    """Prepare the session from the flags and add the cases to this pytest run."""
    config.stash[PREPARED] = _prepare(config)
    config.pluginmanager.register(ToolsurfaceRun(config), "toolsurface-run")


def _prepare(config: pytest.Config) -> Session:
    """Plan the run from flags and `[tool.toolsurface]`; turn bad input into a pytest usage error."""
    try:
        project = _project_config(config)
        given = {
            option.name: config.getoption(option.dest) for option in OPTIONS if option.pytest_flag and option.field
        }
        # Pairing doubles the work and only feeds thresholds; in pytest it is off unless the flag
        # or the config names a red target (None leaves it to the config, noted as its source).
        given["red_target"] = given["red_target"] or (None if project.get("red_target") else NO_TARGET)
        # An item shows its own verdict; which defects a case kills belongs to `toolsurface defects`.
        return prepare(RunOptions.configured(project, **given, defects=False))
    except ScenarioError as error:
        problems = list(error.problems)
    except ToolsurfaceError as error:
        problems = error.lines(pytest_flag_for)
    raise pytest.UsageError(*(f"toolsurface: {problem}" for problem in problems))


def _project_config(config: pytest.Config) -> ProjectConfig:
    given = config.getoption(BY_NAME["config"].dest)
    if given is not None:
        return load_project_config(given)
    default = config.rootpath / "pyproject.toml"
    # Not the engine's default (./pyproject.toml): pytest may run from below the rootdir.
    return load_project_config(default) if default.is_file() else ProjectConfig()


def node_id(case: Case) -> str:
    """The item's node id: the case id as the terminal shows it, since pytest prints node ids as they are."""
    return f"{COLLECTOR}::{printable(case.id)}"


class CaseFailed(Exception):
    """A case ended with a failing verdict; its message is the whole failure report."""


class ToolsurfaceRun:
    """Adds the cases to the collection; on the controller, judges the gate over every outcome."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.prepared = config.stash[PREPARED]
        # Keyed by node id in plan order, so the gate sees the cases in plan order whatever order
        # the workers finish in.
        self.plan_order = {node_id(case): case for case in self.prepared.cases}
        self.tallies: dict[str, Tally] = {}
        self.gate: Gate | None = None

    def pytest_report_header(self, config: pytest.Config) -> str:
        prepared, options = self.prepared, self.prepared.options
        red = prepared.info.red_target or "none"
        return (
            f"toolsurface: {len(prepared.cases)} of {prepared.cases.planned} planned cases on {prepared.info.target} "
            f"(red target {red}), seed {options.seed}"
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        # Beside whatever the arguments collect, so the cases need no test file to live in.
        if isinstance(collector, pytest.Session) and report.passed:
            # Its path is named like its node id's first part, as a test file's would be; nothing is read there.
            path = collector.config.rootpath / COLLECTOR
            report.result.append(Cases.from_parent(collector, name=COLLECTOR, path=path, nodeid=COLLECTOR))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties)
        if report.nodeid in self.plan_order and VERDICT_PROPERTY in properties:
            case, red = self.plan_order[report.nodeid], properties[RED_VERDICT_PROPERTY]
            verdict = VerdictKind(str(properties[VERDICT_PROPERTY]))
            self.tallies[report.nodeid] = Tally(case.id, verdict, None if red is None else VerdictKind(str(red)))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # A worker sees only its share of the cases: the controller judges the whole run.
        if hasattr(self.config, "workerinput") or self.config.option.collectonly:
            return
        tallies = [self.tallies[key] for key in self.plan_order if key in self.tallies]
        self.gate = self.prepared.gate(tallies)
        if not self.gate.ok and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.gate is None:
            return
        gate, tallies = self.gate, list(self.tallies.values())
        terminalreporter.write_sep("=", "toolsurface gate", red=not gate.ok, green=gate.ok)
        split = Counter(tally.verdict for tally in tallies)
        verdicts = ", ".join(f"{kind.value} {split[kind]}" for kind in VerdictKind if split[kind])
        standing = Counter(judged.standing for judged in gate.expectations)
        terminalreporter.write_line(
            f"{'passed' if gate.ok else 'FAILED'}: {len(tallies)} cases ({verdicts or 'none run'}), "
            f"{len(gate.accepted)} of them accepted; "
            f"expectations: {standing[Standing.STALE]} stale, {standing[Standing.EXPIRED]} expired"
        )
        for judged in gate.expectations:
            if not judged.standing.ok:
                entry = judged.expectation
                terminalreporter.write_line(
                    f"{judged.standing.value}: case {entry.case!r} ({entry.verdict.value}): {judged.why}", red=True
                )
        plan = self.prepared.cases.planned
        for judged in gate.expectations:
            if judged.broad(plan):
                entry = judged.expectation
                reach = (
                    f"names {judged.planned} of the {plan} planned cases, {len(judged.cases)} of them "
                    f"{entry.verdict.value} here"
                )
                terminalreporter.write_line(
                    f"broad: case {printable(entry.case)!r} ({entry.verdict.value}): {reach}", yellow=True
                )
        for shortfall in gate.shortfalls:
            terminalreporter.write_line(f"shortfall: {shortfall}", red=True)


class Cases(pytest.Collector):
    """Every case of the prepared session, in plan order."""

    def collect(self) -> list[CaseItem]:
        items = []
        for case in self.config.stash[PREPARED].cases:
            # The node id is given whole, so it equals the one pytest parses back from `--lf` data
            # and xdist reports, whatever characters a case id holds.
            item = CaseItem.from_parent(self, name=printable(case.id), nodeid=node_id(case), case=case)
            if case.equivalent:
                # Counted, never run, as the runner does; a skip mark (unlike pytest.skip() in
                # runtest) reports the item's location rather than this file's.
                item.add_marker(pytest.mark.skip(reason=EQUIVALENT_REASON))
                item.record(Tally(case.id, VerdictKind.EQUIVALENT, None))
            items.append(item)
        return items


class CaseItem(pytest.Item):
    """One case, run on the target when the item runs."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        prepared = self.config.stash[PREPARED]
        result = prepared.runner.run_case(self.case)
        verdict = result.verdict.kind
        self.record(result.tally)
        if verdict.ok:
            return
        covering = [e for e in prepared.expectations if e.verdict is verdict and e.matches(self.case.id)]
        unexpired = [e for e in covering if prepared.today <= e.expires]
        if unexpired:
            pytest.xfail(
                printable(
                    f"accepted as {verdict.value} until {unexpired[0].expires.isoformat()}: {unexpired[0].reason}"
                )
            )
        raise CaseFailed(self._report(result, prepared, covering[0] if covering else None))

    def _report(self, result: CaseRecord, prepared: Session, expired: Expectation | None) -> str:
        evidence = result.evidence
        lines = [f"{result.verdict.kind.value}: {result.verdict.reason}"]
        if expired is not None:
            lines.append(
                f"expired    the acceptance of this {expired.verdict.value} case expired on "
                f"{expired.expires.isoformat()}: {expired.reason}"
            )
        lines.append(f"target     {prepared.info.target}")
        lines += _labelled("diff", evidence.diff or ("(none)",))
        lines += _labelled("ledger", tuple(map(str, evidence.ledger)) or ("(untouched)",))
        shown = [printable(line) for line in lines]
        return "\n".join([*shown, f"reproduce  {prepared.info.reproduce(self.case.id)}"])  # printed already

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def record(self, tally: Tally) -> None:
        """Copied into every report of this item: how the verdicts reach the controller."""
        red = None if tally.red_verdict is None else tally.red_verdict.value
        self.user_properties += [(VERDICT_PROPERTY, tally.verdict.value), (RED_VERDICT_PROPERTY, red)]

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, printable(self.case.id)


def _labelled(label: str, values: tuple[str, ...]) -> list[str]:
    return [f"{label if index == 0 else '':<10} {value}" for index, value in enumerate(values)]
