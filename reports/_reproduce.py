"""What `toolsurface reproduce` shows: one case's change, the owner facts and what each narrowed,
the gateway log, the ledger trace by lane, how the run ended, and the verdict."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.harness._types import Capacity, Crashed, Refused, Reproduction

#: How each way of stopping with an exception is labelled, aligned with the other labels.
_STOPPED = {Refused: "refusal ", Capacity: "capacity", Crashed: "crash   "}


@dataclass(frozen=True)
class ReproductionView:
    reproduction: Reproduction

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        r = self.reproduction
        observed, case = r.observed, r.case
        # Every string here may come from a scenario or a target: plain Text, never markup.
        yield Text(f"case     {case.id}")
        yield Text(f"target   {r.target}   must {case.must.value}")
        yield Text(f"change   {'; '.join(case.change) or 'none (canonically equal)'}")
        yield Text(f"points   {', '.join(observed.points) or 'none offered'}")
        for index, ruling in enumerate(r.rulings):
            yield Text(f"{'facts' if index == 0 else '':9}{ruling}")
        yield Text("gateway  " + ("no dispatch" if not observed.dispatches else f"{len(observed.dispatches)} dispatch(es)"))
        for dispatch, diff in zip(observed.dispatches, r.sent_diffs, strict=True):
            against = "; ".join(diff) or "identical to the expected surface"
            yield Text(f"  sent {dispatch.request}: {len(dispatch.surface)} tools; {against}")
        yield Text(f"ending   {observed.ending}")
        yield Text("ledger" + ("" if observed.ledger else "   untouched"))
        for event in observed.ledger:
            yield Text(f"  {event}")
        stop = observed.stop
        if isinstance(stop, Refused | Capacity | Crashed):
            yield Text(f"{_STOPPED[type(stop)]} {stop.error_type}: {stop.message}")
        if isinstance(stop, Crashed):
            yield Text(stop.traceback.rstrip())
        yield Text.assemble("verdict  ", (r.verdict.kind.value, f"toolsurface.{r.verdict.kind.value}"), f" — {r.verdict.reason}")
