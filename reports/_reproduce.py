"""What `toolsurface reproduce` shows: one case's change, the owner facts and what each narrowed,
the gateway log, the ledger trace by lane, what the run did to the publication store, how the run
ended, and the verdict."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.harness._types import (
    Capacity,
    Crashed,
    Dispatch,
    Refused,
    Reproduction,
    SettlementRefused,
)
from toolsurface.mutators import Must

#: How each way of stopping with an exception is labelled, aligned with the other labels.
_STOPPED = {Refused: "refusal ", Capacity: "capacity", Crashed: "crash   "}


@dataclass(frozen=True)
class ReproductionView:
    reproduction: Reproduction

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        r = self.reproduction
        observed, case = r.observed, r.case
        # Every string here may come from a scenario or a target: plain Text, never markup, and
        # through `printable`, so no control character reaches the terminal.
        yield _line(f"case     {case.id}")
        yield _line(f"target   {r.target}   must {case.must.value}")
        yield _line(f"change   {'; '.join(case.change or ()) or 'none (canonically equal)'}")
        yield _line(f"points   {', '.join(map(str, observed.points)) or 'none offered'}")
        for index, ruling in enumerate(r.rulings):
            yield _line(f"{'facts' if index == 0 else '':9}{ruling}")
        yield _line(
            "gateway  " + ("no dispatch" if not observed.dispatches else f"{len(observed.dispatches)} dispatch(es)")
        )
        for dispatch, diff in zip(observed.dispatches, r.sent_diffs, strict=True):
            yield from _sent(dispatch, diff, "the expected surface")
        for index, line in enumerate(observed.stale or observed.first_run):
            yield _line(f"{'before' if index == 0 else '':9}{line}")
        yield _line(f"ending   {observed.ending}")
        yield _line("ledger" + ("" if observed.ledger else "   untouched"))
        for event in observed.ledger:
            yield _line(f"  {event}")
        # The whole difference, allowed or not: the verdict's reason names only what fails it.
        changes = observed.publications.lines()
        for index, line in enumerate(changes or ["untouched"]):
            yield _line(f"{'store' if index == 0 else '':9}{line}")
        stop = observed.stop
        if observed.provider_failures:
            yield _line(f"provider failed {observed.provider_failures} model call(s) it was sent: none went out")
        if isinstance(stop, Crashed) and case.must is Must.FAIL and observed.provider_failures:
            # The failure's own error, which the request was to end in: no crash to trace.
            yield _line(f"raised   {stop.error_type}: {stop.message}")
        elif isinstance(stop, Refused | Capacity | Crashed):
            yield _line(f"{_STOPPED[type(stop)]} {stop.error_type}: {stop.message}")
            if isinstance(stop, Crashed):
                yield from map(_line, stop.traceback.rstrip().split("\n"))
        if isinstance(stop, SettlementRefused):
            yield _line(f"raised   the ledger's refusal of a settlement out of run(): {stop.note}")
        yield from _next_request(r)
        verdict = r.verdict
        yield Text.assemble(
            "verdict  ", (verdict.kind.value, f"toolsurface.{verdict.kind.value}"), f" — {printable(verdict.reason)}"
        )


def _next_request(r: Reproduction) -> Iterator[Text]:
    """The unchanged follow-up request on the same host, against a clean run: where a change that
    outlived its request shows."""
    follow, leaked = r.observed.next_request, r.observed.leaked
    if follow is None:
        return
    yield _line(f"next     an unchanged request on the same host, after this one: ended {follow.ending}")
    yield _line(f"  points {', '.join(map(str, follow.points)) or 'none offered'}")
    for dispatch, diff in zip(follow.dispatches, r.next_sent_diffs, strict=True):
        yield from _sent(dispatch, diff, "what a clean run sends")
    if leaked:
        for index, line in enumerate(leaked):
            yield _line(f"  {'differs' if index == 0 else '       '} from a clean run: {line}")
    else:
        yield _line("  as a clean run: nothing outlived the request")


def _sent(dispatch: Dispatch, diff: tuple[str, ...], against: str) -> Iterator[Text]:
    """One dispatch and every way it differs from `against`, one change a line: the verdict's
    reason names only the first few."""
    if not diff:
        yield _line(f"  sent {dispatch.request}: {len(dispatch.surface)} tools; identical to {against}")
        return
    yield _line(f"  sent {dispatch.request}: {len(dispatch.surface)} tools; {len(diff)} difference(s) from {against}:")
    yield from (_line(f"    {change}") for change in diff)


def _line(text: str) -> Text:
    return Text(printable(text))
