"""The defect kill matrix: which cases kill which reference defect."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from toolsurface.harness._printable import printable
from toolsurface.harness._types import CaseRecord


@dataclass(frozen=True)
class DefectMatrix:
    #: Defect name → the cases that fail on it and pass on the guard.
    kills: Mapping[str, Sequence[CaseRecord]]

    @property
    def alive(self) -> list[str]:
        return [name for name, killers in self.kills.items() if not killers]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(title="defect kill matrix", title_justify="left")
        for column in ("defect", "killed by", "first killing case"):
            table.add_column(column, overflow="fold")
        for name, killers in self.kills.items():
            style = "toolsurface.killed" if killers else "toolsurface.survived"
            table.add_row(name, Text(f"{len(killers)} cases", style=style), printable(killers[0].id) if killers else "—")
        yield table
        if self.alive:
            yield Text(f"not killed by any case: {', '.join(self.alive)}", style="toolsurface.fail")
        else:
            yield Text(f"all {len(self.kills)} defects killed", style="toolsurface.ok")
