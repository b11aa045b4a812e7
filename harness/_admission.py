"""How a case is judged on a target whose admission is a step of its own: one rule for the oracle,
and for reading results.json back.

A host or agent may select each model call's tools — a tool selector, a router, middleware that
brings its own tools — and declare where that admission ends (`Ports.admit`; for a LangChain agent,
the guard's `guard.admitted`). Each model call is then held to what its admission selected, and
must end in a capacity result exactly where that selection and its messages exceed the recorded
context fit. A change made before admission ended is admission's to make: where the selection is
still registered tools, each unchanged and once (a narrowing, a new ranking, or an edit of a tool
it left out), the request must go out as selected; where it holds a tool changed, added or
doubled, it must be refused, whether the change was injected or the host's own. A capability
summary is held to as planned, wherever it changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import RequestOutcome

from ._types import Admitted, Case


def as_admitted_case(case: Case, admitted: Sequence[Admitted]) -> Case:
    """The case with what its request must do, its change made where it was (see `admitted_must`)."""
    must = admitted_must(case, admitted)
    return (
        case if must is case.must else dataclasses.replace(case, mutation=dataclasses.replace(case.mutation, must=must))
    )


def admitted_must(case: Case, admitted: Sequence[Admitted]) -> Must:
    """What the case's request must do, its change made where it was."""
    own = next((a for a in reversed(admitted) if a.call == case.call), None)
    if own is None or case.mutation.kind is Kind.ENTRY:
        return case.must
    if not own.selection:
        # Admission held a tool changed, added or doubled, whoever changed it: the change
        # injected before it, or the host's own (a selector that edits what it keeps).
        return Must.REFUSE
    return Must.DISPATCH if own.after_change and case.must is Must.REFUSE else case.must


def admitted_outcome(admitted: Sequence[Admitted], recorded: RequestOutcome) -> RequestOutcome:
    """How the request must end: in a capacity result where its first admission does not fit."""
    first = next((a for a in reversed(admitted) if a.call == 1), None)
    if first is None:
        return recorded
    return RequestOutcome.CAPACITY if first.over_capacity else RequestOutcome.DISPATCHED
