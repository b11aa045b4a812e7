"""The terminal summary of a run: built as a value first, rendered by rich second."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from harness import CaseResult, Ending, VerdictKind
from mutators import Kind

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
        "toolsurface.command": "cyan",
    }
)

#: How many failing cases the summary lists before pointing at results.json.
MAX_LISTED = 20


@dataclass(frozen=True, slots=True)
class Failure:
    case_id: str
    verdict: VerdictKind
    reason: str
    reproduce: str


@dataclass(frozen=True)
class RunSummary:
    """What a person needs to see after a run."""

    target: str
    red_target: str | None
    seed: int
    by_kind: dict[str, Counter[VerdictKind]]
    #: How the runs on the target ended (dispatched, refused, capacity, …); equivalent cases are not run.
    endings: Counter[Ending]
    red: Counter[VerdictKind]
    controlled: int
    failures: tuple[Failure, ...]
    results_path: str

    @classmethod
    def build(
        cls,
        results: Iterable[CaseResult],
        *,
        target: str,
        red_target: str | None,
        seed: int,
        reproduce: dict[str, str],
        results_path: str,
    ) -> RunSummary:
        by_kind: dict[str, Counter[VerdictKind]] = {}
        endings: Counter[Ending] = Counter()
        red: Counter[VerdictKind] = Counter()
        failures: list[Failure] = []
        controlled = 0
        for result in results:
            by_kind.setdefault(result.case.mutation.kind.value, Counter())[result.verdict.kind] += 1
            if result.evidence.ending is not Ending.NOT_RUN:
                endings[result.evidence.ending] += 1
            if result.red_verdict is not None:
                red[result.red_verdict.kind] += 1
            controlled += result.controlled
            if not result.verdict.kind.ok:
                case_id = result.case.id
                failures.append(Failure(case_id, result.verdict.kind, result.verdict.reason, reproduce[case_id]))
        # Rows in planning order, whichever scenario happened to show a kind first.
        by_kind = {kind.value: by_kind[kind.value] for kind in Kind if kind.value in by_kind}
        return cls(target, red_target, seed, by_kind, endings, red, controlled, tuple(failures), results_path)

    @property
    def total(self) -> Counter[VerdictKind]:
        return sum(self.by_kind.values(), Counter())

    @property
    def ok(self) -> bool:
        return not self.failures

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # No outer edge: the table then fits an 80-column CI log without cutting a header.
        table = Table(title=Text(f"toolsurface — {self.target} (seed {self.seed})"), title_justify="left", show_edge=False)
        table.add_column("kind")
        for kind in VerdictKind:
            table.add_column(kind.value, justify="right", style=f"toolsurface.{kind.value}")
        for name, counts in self.by_kind.items():
            table.add_row(name, *(str(counts[kind]) for kind in VerdictKind))
        table.add_section()
        total = self.total  # summed once: the property walks every kind's counter
        table.add_row("total", *(str(total[kind]) for kind in VerdictKind), style="bold")
        parts: list[object] = [table]
        if self.endings:
            ran = " · ".join(f"{count} {ending}" for ending, count in sorted(self.endings.items(), key=_by_ending))
            parts.append(Text(f"requests ended: {ran}"))
        if self.red_target:
            red_fail = sum(n for kind, n in self.red.items() if not kind.ok)
            parts.append(
                Text(f"red target {self.red_target}: {red_fail} of {sum(self.red.values())} cases fail there; "
                     f"{self.controlled} controlled (RED there, GREEN here)")
            )
        for failure in self.failures[:MAX_LISTED]:
            line = Text.assemble((f"{failure.verdict.value:>12} ", f"toolsurface.{failure.verdict.value}"), failure.case_id)
            command = Text(f"             {failure.reproduce}", style="toolsurface.command")
            parts += [line, Text(f"             {failure.reason}"), command]
        if len(self.failures) > MAX_LISTED:
            parts.append(Text(f"… and {len(self.failures) - MAX_LISTED} more in {self.results_path}"))
        cases = sum(total.values())
        if self.ok:
            parts.append(Text(f"PASS: {cases}/{cases} cases — no survivors, false rejections or errors", style="toolsurface.ok"))
        else:
            parts.append(Text(f"FAIL: {len(self.failures)} of {cases} cases failed; results: {self.results_path}", style="toolsurface.fail"))
        yield Group(*parts)


def _by_ending(item: tuple[Ending, int]) -> int:
    return list(Ending).index(item[0])
