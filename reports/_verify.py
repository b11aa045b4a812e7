"""The terminal view of `verify`: the sample re-run, each case whose verdict differs, and the gate.

Case ids and reasons come from the file and the targets: shown through `printable`, as plain text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.harness._types import Verdict
from toolsurface.harness._verify import Difference, Verification


@dataclass(frozen=True)
class VerificationView:
    verification: Verification

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        found = self.verification
        if not found.eligible:
            yield Text(f"{printable(found.path)}: every case is equivalent (never run), so none can be re-run")
            yield Text.assemble(("PASS", "toolsurface.ok"), ": nothing to compare")
            return
        paired = f", paired with {printable(found.red_target)}" if found.red_target else ""
        yield Text(
            f"{printable(found.path)}: re-ran {found.sampled:,} of its {found.eligible:,} non-equivalent cases "
            f"on {printable(found.target)}{paired} (sample --seed {found.seed})"
        )
        for difference in found.differences:
            yield from _difference(difference)
        if found.ok:
            yield Text.assemble(
                ("PASS", "toolsurface.ok"), f": every re-run verdict is the recorded one ({found.sampled:,} cases)"
            )
        else:
            differ = len(found.differences)
            yield Text.assemble(
                ("FAIL", "toolsurface.fail"),
                f": {differ:,} of {found.sampled:,} re-run cases differ from the recorded verdicts",
            )


def _difference(difference: Difference) -> Iterator[Text]:
    yield Text(f"  {printable(difference.case_id)}")
    yield _verdict("recorded", difference.recorded)
    yield _verdict("re-run", difference.rerun)
    if difference.rerun_red != difference.recorded_red:
        yield _verdict("red recorded", difference.recorded_red)
        yield _verdict("red re-run", difference.rerun_red)
    yield Text.assemble("    ", (printable(difference.reproduce), "toolsurface.command"))


def _verdict(label: str, verdict: Verdict | None) -> Text:
    if verdict is None:
        return Text(f"    {label:<13} none")
    kind = verdict.kind.value
    return Text.assemble(f"    {label:<13} ", (kind, f"toolsurface.{kind}"), f" — {printable(verdict.reason)}")
