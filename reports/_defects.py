"""The defect kill matrix: which cases kill which reference defect."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.harness._types import CaseRecord


@dataclass(frozen=True)
class DefectMatrix:
    #: Defect name → the cases that fail on it and pass on the guard.
    kills: Mapping[str, Sequence[CaseRecord]]

    @property
    def alive(self) -> list[str]:
        return [name for name, killers in self.kills.items() if not killers]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # One line per defect, never a table cell: a case id folded across lines could not be
        # copied whole, and ids run past any terminal's width.
        yield Text("defect kill matrix: defect, cases that kill it, the first of them", style="bold")
        width = max(map(len, self.kills), default=0)
        for name, killers in self.kills.items():
            style = "toolsurface.killed" if killers else "toolsurface.survived"
            first = printable(killers[0].id) if killers else "—"
            yield Text.assemble(
                f"  {name:<{width}}  ",
                (f"{len(killers):>5} cases", style),
                f"  {first}",
                no_wrap=True,
                overflow="ignore",
            )
        if self.alive:
            yield Text(f"not killed by any case: {', '.join(self.alive)}", style="toolsurface.fail")
        else:
            yield Text(f"all {len(self.kills)} defects killed", style="toolsurface.ok")
