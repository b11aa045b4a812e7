"""Tool selection middleware: a cheap scorer decides which tools a turn needs."""

from __future__ import annotations

import logging
from typing import Callable, Iterable, Mapping, Sequence

from agentcore import AgentMiddleware, Message, ModelRequest, ModelResponse, ToolDef
from agentcore.middleware import Handler

from .context_fit import estimate_tool
from .ranking import pack, rotate, shortlist

log = logging.getLogger(__name__)

Scorer = Callable[[Sequence[Message], Sequence[ToolDef]], Mapping[str, float]]


class ToolSelectorMiddleware(AgentMiddleware):
    """Keeps the tools the scorer ranks highest, plus ``always_include``."""

    name = "tool-selector"

    def __init__(self, scorer: Scorer, *, max_tools: int = 6, always_include: Iterable[str] = ()) -> None:
        self._scorer = scorer
        self.max_tools = max_tools
        self.always_include = frozenset(always_include)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        scores = self._scorer(request.messages, request.tools)
        ranked = sorted(request.tools, key=lambda d: scores.get(d.name, 0.0), reverse=True)
        chosen = [d for d in request.tools if d.name in self.always_include]
        for definition in ranked:
            if definition.name in self.always_include:
                continue
            if len(chosen) >= self.max_tools:
                break
            chosen.append(definition)
        log.info("selected %s", [d.name for d in chosen])
        return handler(request.override(tools=chosen))


class ShortlistSelector(AgentMiddleware):
    """Offers a shortlist, rotated per turn so that ties do not always favour the same tool."""

    name = "shortlist"

    def __init__(self, scorer: Scorer, *, limit: int = 12) -> None:
        self._scorer = scorer
        self.limit = limit
        self._turn = 0

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        picks = shortlist(request.tools, self._scorer(request.messages, request.tools), self.limit)
        self._turn += 1
        offset = self._turn % len(picks) if picks else 0
        return handler(request.override(tools=rotate(picks, offset)))


class BudgetSelector(AgentMiddleware):
    """Offers what fits a per-turn token allowance for tool definitions."""

    name = "budget-selector"

    def __init__(self, budget_tokens: int) -> None:
        self.budget_tokens = budget_tokens

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        kept = pack(request.tools, self.budget_tokens, estimate_tool)
        return handler(request.override(tools=kept))
