"""What `toolsurface explore` shows: the change it found, as a case, with its verdict and the
commands that run it again; or how far it searched and found nothing."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.harness._examples import DEFAULT_EXAMPLES

if TYPE_CHECKING:
    from toolsurface.harness._api import RunOptions
    from toolsurface.harness._explore import Exploration
    from toolsurface.harness._types import CaseRecord


@dataclass(frozen=True)
class ExplorationView:
    exploration: Exploration
    options: RunOptions
    #: Where the finding was saved; None when nothing was found.
    saved: Path | None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from toolsurface.harness._explore import Found

        found = self.exploration
        spent = f"{found.tried} change(s) tried in {found.seconds:.1f} s"
        if not isinstance(found, Found):
            why = "the time limit ran out" if found.out_of_time else "the budget ran out"
            yield _line(f"nothing found: {spent}; {why} (seed {self.options.seed})")
            yield from _errors(found.errors)
            return
        record, case = found.record, found.record.case
        tried, seconds = found.first
        yield Text.assemble(
            ("FOUND", f"toolsurface.{record.verdict.kind.value}"),
            f": the first failing change after {tried} change(s) in {seconds:.1f} s; shrunk to this one, {spent}",
        )
        yield _line(f"case     {case.id}")
        yield _line(f"on       {case.scenario}/{case.lane}/{case.hook_mode} at {case.boundary}")
        yield _line(f"mutation {case.mutation.mutator} {case.mutation.delivery} {case.mutation.aim}")
        yield _line(f"must     {case.must.value}")
        for index, line in enumerate(case.change or ("none (canonically equal)",)):
            yield _line(f"{'change' if index == 0 else '':9}{line}")
        verdict = record.verdict
        yield Text.assemble(
            "verdict  ", (verdict.kind.value, f"toolsurface.{verdict.kind.value}"), f" — {printable(verdict.reason)}"
        )
        yield _line(f"saved    {self.saved}: `toolsurface run` runs it from now on")
        yield _line(f"reproduce: {self.command('reproduce', case.id)}")
        yield _line(f"search again: {self.command('explore')}")
        yield from _errors(found.errors)

    def command(self, name: str, *arguments: str) -> str:
        """A command line with this exploration's target, seed, recordings and examples folder."""
        o = self.options
        words = ["toolsurface", name, *arguments, "--target", o.target, "--seed", str(o.seed)]
        for path in o.scenarios:
            words += ["--scenarios", str(path)]
        if self.saved is not None and self.saved.parent != DEFAULT_EXAMPLES:
            words += ["--examples", str(self.saved.parent)]
        return shlex.join(map(printable, words))


def _errors(errors: tuple[CaseRecord, ...]) -> Iterator[Text]:
    """Errors met on the way: not findings (`--errors` makes them so), but a reader should know."""
    for record in errors:
        yield _line(f"error on the way (not a finding): {record.case.id}: {record.verdict.reason}")


def _line(text: str) -> Text:
    return Text(printable(text))
