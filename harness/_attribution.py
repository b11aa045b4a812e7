"""Which failures the framework causes itself, apart from what the user's agent does.

Between an agent's last boundary and the model, a framework may hand the tools on in a form of its
own: LangChain's chat models convert each tool with `convert_to_openai_tool`, which rewrites a
JSON-schema dict on its way (`$ref`s inlined, `$defs` and `title`s dropped). A target says so with
`framework_form`: the tools, as logical dicts, as the framework hands them to the model.

A failing case is the framework's own when it passes once every surface it should have sent is put
through that form: whatever differs between what went out and what should have is then the
framework's doing, not a change the agent's middleware made or let through. Its verdict stands — a
failure is never turned into a pass here — and reports list such causes after the user's, with what
the user can do about them (`framework_remedy`). A case whose middleware changed the surface as well
stays the user's: the form does not explain that change. Its reason and diff are then said against
the framework's form (`in_form`), so they name what the agent did, not the framework's rewrite beside it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._formats import ToolFormat
from toolsurface.scenarios import Scenario

from ._oracles import Expected, as_admitted, evidence, judge
from ._types import Case, Observation, Verdict

#: `framework_form(tools)`: logical tool dicts (`name`, `description`, `input_schema`) as the
#: framework hands them to the model, in the order it hands them on.
FrameworkForm = Callable[[list[dict[str, Any]]], Sequence[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class InForm:
    """A case judged against the expected surfaces in the framework's form."""

    verdict: Verdict
    #: Every change of the model call its reason speaks of, against the framework's form (`Evidence.diff`).
    diff: tuple[str, ...]


def in_form(
    case: Case, observed: Observation, scenario: Scenario, expected: Expected, form: FrameworkForm, fmt: ToolFormat
) -> InForm | None:
    """The case judged against `expected` in the framework's form (`form`, the tools captured in
    `fmt`); None when the form changes no expected surface, or fails. Passing so, a case failing
    against `expected` is the framework's own (`framework_own`); failing so too, it is the agent's,
    and this says its failure without what the framework did beside it.

    Each model call is held to what it is held to when judged (`as_admitted`), then put through the form.
    """
    case, observed, scenario, expected = as_admitted(case, observed, scenario, expected)
    try:
        formed = tuple(_formed(form, surface, fmt) for surface in expected)
    except Exception:  # a target's own form: it may fail, and a case's record must not
        return None
    if formed == expected:
        return None
    # Held to its admissions already: judged again without them, so they are not applied twice.
    observed = dataclasses.replace(observed, admissions=())
    return InForm(judge(case, observed, scenario, formed), evidence(case, observed, scenario, formed).diff)


def framework_own(
    case: Case, observed: Observation, scenario: Scenario, expected: Expected, form: FrameworkForm, fmt: ToolFormat
) -> bool:
    """Whether the case, failing as judged against `expected`, passes against it in the framework's
    form: its failure is the framework's own. A form that changes nothing, or fails, explains nothing."""
    judged = in_form(case, observed, scenario, expected, form, fmt)
    return judged is not None and judged.verdict.kind.ok


@functools.lru_cache(maxsize=64)
def _formed(form: FrameworkForm, surface: Snapshot, fmt: ToolFormat) -> Snapshot:
    # Asked for every failing case; a run's expected surfaces are few, frozen and shared by its cases.
    entries = surface.entries()
    tools = [{"name": name, "description": text, "input_schema": schema} for name, text, schema, *_ in entries]
    return capture(form(tools), fmt)
