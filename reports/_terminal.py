"""The terminal summary of a run: built as a value first, rendered by rich second.

Case ids, reasons, diffs, paths and expectation patterns come from scenarios, targets and files:
they are shown through `printable`, so none of them can drive the terminal or reorder a line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from toolsurface.common._printable import printable
from toolsurface.harness._reasons import clip
from toolsurface.harness._types import VerdictKind

from ._audit import Audit
from ._groups import Cause

#: Named styles: renderers say what a thing is, the theme says how it looks.
THEME = Theme(
    {
        "toolsurface.killed": "green",
        "toolsurface.passed": "green",
        "toolsurface.equivalent": "dim",
        "toolsurface.survived": "bold red",
        "toolsurface.false_reject": "bold magenta",
        "toolsurface.error": "bold yellow",
        "toolsurface.ok": "bold green",
        "toolsurface.fail": "bold red",
        "toolsurface.broad": "bold yellow",
        "toolsurface.command": "cyan",
        "toolsurface.diff": "dim",
    }
)

#: How many causes of failure the summary shows, each by one representative case, before pointing
#: at the audit and results.json: a red run reads as its few causes, not its first cases.
MAX_CAUSES = 10
#: How many causes the target's framework causes itself the summary shows, after the agent's own.
MAX_FRAMEWORK_CAUSES = 3
#: How many likely flaws the summary shows before pointing at the audit for the rest.
MAX_LIKELY = 5
#: How many lines of each failing case's surface diff it shows.
MAX_DIFF_LINES = 3


@dataclass(frozen=True)
class RunSummary:
    """What a person needs to see after a run: the audit, as a terminal table and a verdict."""

    audit: Audit
    #: Where the full record is, for the "… and N more" line.
    results_path: str

    @property
    def ok(self) -> bool:
        return self.audit.ok

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        audit = self.audit
        run = audit.run
        by_kind = audit.by_kind()
        # No outer edge: the table then fits an 80-column CI log without cutting a header.
        title = Text(f"toolsurface — {printable(run.target)} (seed {run.seed})")
        table = Table(title=title, title_justify="left", show_edge=False)
        table.add_column("kind")
        for kind in VerdictKind:
            table.add_column(kind.value, justify="right", style=f"toolsurface.{kind.value}")
        for name, counts in by_kind.items():
            table.add_row(name, *(str(counts[kind]) for kind in VerdictKind))
        table.add_section()
        total = audit.totals
        table.add_row("total", *(str(total[kind]) for kind in VerdictKind), style="bold")
        parts: list[RenderableType] = [table]
        if endings := audit.endings():
            parts.append(
                Text("requests ended: " + " · ".join(f"{count} {ending}" for ending, count in endings.items()))
            )
        if run.red_target:
            parts.append(
                Text(
                    f"red target {printable(run.red_target)}: {audit.red_failing} of {audit.count} cases fail there; "
                    f"{audit.controlled} controlled (RED there, GREEN here)"
                )
            )
        if audit.defects is not None:
            alive = [printable(row.name) for row in audit.defects if not row.kills]  # as results.json names them
            killed = len(audit.defects) - len(alive)
            line = f"reference defects: {killed} of {len(audit.defects)} killed"
            parts.append(
                Text(
                    line + (f"; not killed: {', '.join(alive)}" if alive else ""),
                    style="toolsurface.fail" if alive else "",
                )
            )
        parts += self._likely()
        parts += self._causes()
        if audit.accepted:
            parts.append(Text(f"{len(audit.accepted)} failing cases accepted by expectations"))
        for judged in audit.expectations:
            if not judged.standing.ok:
                entry = printable(f"expectation {judged.expectation.case}: {judged.why}")
                parts.append(Text.assemble((f"{judged.standing:>12} ", "toolsurface.fail"), entry))
        for judged in audit.broad:
            entry = printable(
                f"expectation {judged.expectation.case} ({judged.expectation.verdict}): {audit.reach(judged)}"
            )
            parts.append(Text.assemble((f"{'broad':>12} ", "toolsurface.broad"), entry))
        for shortfall in audit.shortfalls:
            parts.append(Text.assemble(("   threshold ", "toolsurface.fail"), printable(shortfall)))
        if audit.ok:
            parts.append(Text(f"PASS: {audit.headline}", style="toolsurface.ok"))
        else:
            parts.append(
                Text(f"FAIL: {self._why_failed()}; results: {printable(self.results_path)}", style="toolsurface.fail")
            )
        yield Group(*parts)

    def _likely(self) -> list[RenderableType]:
        """The reference defects the failing cases fail like, each with its flaw, its count, an
        example and the command that reproduces it; then how many cases fail like none."""
        audit = self.audit
        diagnosis = audit.diagnosis
        if not diagnosis.likely:
            return []
        parts: list[RenderableType] = [
            Text(
                "likely flaws (the reference defects these failures look like; see the causes below for "
                "why each failed):"
            )
        ]
        for likeness in diagnosis.likely[:MAX_LIKELY]:
            case = likeness.representative
            head = f"fails like {printable(likeness.defect)} ({printable(likeness.flaw)}): {likeness.count:,} cases"
            head += f"; these cases fail alike on {', '.join(map(printable, likeness.alike))}" if likeness.alike else ""
            parts.append(Text.assemble(("  " + head, "toolsurface.fail")))
            parts.append(Text(f"             e.g. {printable(case.id)}"))
            parts.append(Text(f"             {audit.reproduce(case)}", style="toolsurface.command"))
        if len(diagnosis.likely) > MAX_LIKELY:
            rest = diagnosis.likely[MAX_LIKELY:]
            parts.append(
                Text(
                    f"  … and {len(rest)} more likely flaws ({sum(like.count for like in rest):,} cases): "
                    "the audit lists them"
                )
            )
        if diagnosis.unexplained:
            unexplained = len(diagnosis.unexplained)
            parts.append(
                Text(
                    f"  {unexplained:,} failing cases fail like no reference defect, in "
                    f"{len(diagnosis.unexplained_causes)} causes"
                )
            )
        return parts

    def _causes(self) -> list[RenderableType]:
        """Each cause of the agent's own: its verdict, size and reason class, then its representative
        case with that case's own reason, the first lines of its diff and the command that reproduces
        it; then, apart, the causes its framework causes itself, with what to do about them."""
        audit = self.audit
        parts = self._listed(audit.causes, MAX_CAUSES, "")
        if framework := audit.framework_causes:
            parts.append(
                Text(
                    f"the framework's own: {audit.framework_own:,} failing cases in {len(framework)} causes, "
                    "where what reached the model is what the framework makes of the expected tools "
                    "(they fail all the same)"
                )
            )
            parts.append(Text(f"  what to do: {printable(audit.framework_remedy)}"))
            parts += self._listed(framework, MAX_FRAMEWORK_CAUSES, "framework ")
        return parts

    def _listed(self, causes: tuple[Cause, ...], most: int, whose: str) -> list[RenderableType]:
        audit = self.audit
        parts: list[RenderableType] = []
        for cause in causes[:most]:
            case = cause.representative
            kind = cause.verdict.value
            parts.append(
                Text.assemble(
                    (f"{kind:>12} ", f"toolsurface.{kind}"), f"× {cause.count}: {clip(printable(cause.reason))}"
                )
            )
            parts.append(Text(f"             {printable(case.id)}"))
            if case.verdict.reason != cause.reason:
                parts.append(Text(f"             {clip(printable(case.verdict.reason))}"))
            # The first changes, each cut to a line: the whole list is in results.json and the HTML report.
            diff = case.evidence.diff[:MAX_DIFF_LINES]
            parts += [Text(f"               {clip(printable(line))}", style="toolsurface.diff") for line in diff]
            # Printed already, word by word (`RunInfo.reproduce`): `printable` again would double its backslashes.
            parts.append(Text(f"             {audit.reproduce(case)}", style="toolsurface.command"))
        if len(causes) > most:
            rest = causes[most:]
            cases = sum(cause.count for cause in rest)
            parts.append(
                Text(
                    f"… and {len(rest)} more {whose}causes ({cases} cases): the audit lists them, "
                    f"{printable(self.results_path)} has every case"
                )
            )
        return parts

    def _why_failed(self) -> str:
        audit = self.audit
        reasons = []
        if audit.failing:
            reasons.append(f"{len(audit.failing)} of {audit.count} cases failed")
        drifted = sum(not judged.standing.ok for judged in audit.expectations)
        if drifted:
            reasons.append(f"{drifted} expectations expired or stale")
        if audit.shortfalls:
            reasons.append(f"{len(audit.shortfalls)} thresholds not reached")
        return "; ".join(reasons)
