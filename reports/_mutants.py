"""Source-mutant results: a terminal view, and the open mutation-testing report (Stryker's schema)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.harness._mutants import MutantRun

_STYLE = {
    "Killed": "toolsurface.killed",
    "Survived": "toolsurface.survived",
    "Equivalent": "toolsurface.equivalent",
    "Ignored": "toolsurface.equivalent",
}
#: The report schema has no word for a mutant declared equivalent: Stryker writes it `Ignored`, with
#: the reason, as it does a mutant its user excludes.
_REPORTED = {"Equivalent": "Ignored"}


@dataclass(frozen=True)
class MutantsView:
    run: MutantRun

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        run = self.run
        # Source text, paths and reasons come from the user's files and targets: plain Text, never
        # markup, and through `printable`, so no control or bidi character in them acts on the terminal.
        yield Text(
            printable(f"mutants of {_shown(run.path)} on {run.target} ({run.cases} cases that pass on it unmutated)")
        )
        for result in run.results:
            mutant = result.mutant
            yield Text.assemble(
                (f"{result.status:>13} ", _STYLE.get(result.status, "toolsurface.error")),
                printable(f"{mutant.id}  {mutant.description}"),
            )
            # A killing case's id and a verdict's reason may hold a scenario's control characters.
            if result.killed_by:
                yield Text(f"              killed by {printable(result.killed_by)}")
            else:
                yield Text(f"              {printable(result.reason)}")
            if not result.killed_by and result.status not in ("Ignored", "Equivalent"):
                yield Text("\n".join(map(printable, mutant.diff.rstrip().split("\n"))))
        for stale in run.stale:
            yield Text.assemble(("stale equivalent ", "toolsurface.fail"), printable(stale))
        style = "toolsurface.ok" if run.ok else "toolsurface.fail"
        ignored = len(run.results) - run.counted
        declared = f", {run.equivalent} equivalent" if run.equivalent else ""
        tail = f" ({ignored} equivalent, ignored)" if ignored else ""
        score = f"mutation score {run.score:.0f}%: {run.killed} of {run.counted} mutants killed{declared}{tail}"
        yield Text(score, style=style)


def _shown(path: str) -> str:
    """The path relative to the working folder when it lies inside it, as a reader would type it."""
    try:
        return Path(path).resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def stryker_report(run: MutantRun, root: Path) -> dict[str, Any]:
    """The run in the open mutation-testing report format (schema version 2)."""
    path = Path(run.path).resolve()
    try:
        key = path.relative_to(root.resolve()).as_posix()
    except ValueError:
        key = path.as_posix()
    mutants = []
    for result in run.results:
        mutant = result.mutant
        entry: dict[str, Any] = {
            "id": mutant.id,
            "mutatorName": mutant.mutator,
            "description": mutant.description,
            "replacement": mutant.replacement,
            "location": {
                "start": {"line": mutant.line, "column": mutant.column},
                "end": {"line": mutant.end_line, "column": mutant.end_column},
            },
            "status": _REPORTED.get(result.status, result.status),
            "statusReason": result.reason,
        }
        if result.killed_by:
            entry["killedBy"] = [result.killed_by]
        mutants.append(entry)
    return {
        "schemaVersion": "2",
        "thresholds": {"high": 100, "low": 100},
        "projectRoot": str(root.resolve()),
        "framework": {"name": "toolsurface"},
        "files": {key: {"language": "python", "source": run.source, "mutants": mutants}},
    }
