"""Defects of a host at real sizes: a list capped, selected or cut where a check no longer sees it.

Each is the shipped guard with exactly one step replaced. Real hosts send 40 to 150 tools, so they cap
their list (Cursor at 40), put a selector in front of it (LangChain's `LLMToolSelectorMiddleware`),
or cut names and descriptions to a provider's limits; done after the final check, or taken for a
narrowing, each sends a list other than the admitted one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from toolsurface.contract._guard import Capacity, GuardedRequest

from ._guarded import GuardedPipeline
from ._stages import Run

#: The cap a host puts on its list (Cursor's).
HOST_CAP = 40
#: Where the cutting hosts cut: a description at 1,024 characters, a name at 48 (room for a server prefix).
DESCRIPTION_LIMIT = 1024
NAME_LIMIT = 48


class CapAfterCheck(GuardedPipeline):
    """Checks the full list, then keeps only the first 40 tools to send."""

    name: ClassVar[str] = "reference:defect/cap-after-check"

    def final_check(self, run: Run) -> None:
        super().final_check(run)
        run.tools = run.tools[:HOST_CAP]


class DescriptionCutAfterCheck(GuardedPipeline):
    """Checks the full list, then cuts every description past 1,024 characters, with an ellipsis."""

    name: ClassVar[str] = "reference:defect/description-cut-after-check"

    def final_check(self, run: Run) -> None:
        super().final_check(run)
        for tool in run.tools:
            if len(description := run.fmt.get_description(tool)) > DESCRIPTION_LIMIT:
                run.fmt.set_description(tool, description[: DESCRIPTION_LIMIT - 1] + "\u2026")


class NameCutAfterCheck(GuardedPipeline):
    """Checks the full list, then cuts every name past 48 characters to make room for a prefix."""

    name: ClassVar[str] = "reference:defect/name-cut-after-check"

    def final_check(self, run: Run) -> None:
        super().final_check(run)
        for tool in run.tools:
            if len(name := run.fmt.get_name(tool)) > NAME_LIMIT:
                run.fmt.set_name(tool, name[:NAME_LIMIT])


class SelectorTrim(GuardedRequest):
    """Over the provider's limit on tools per request, a selector keeps the first `max_tools`
    instead of a capacity result, and the checks take its pick for a narrowing."""

    name: ClassVar[str] = "reference:defect/selector-trim"

    picked_out: frozenset[str] = frozenset()

    def fit(self, tools: Any, messages: Sequence[Any], capacity: Capacity | None = None) -> Any:
        limit = (capacity or self.capacity or Capacity(0)).max_tools
        if limit is not None and len(tools) > limit:
            self.picked_out |= {self.fmt.get_name(tool) for tool in tools[limit:]}
            tools = tools[:limit]
        return super().fit(tools, messages, capacity)

    def hidden(self) -> frozenset[str]:
        return super().hidden() | self.picked_out
