"""Base classes shared by the provider adapters."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from graphhost.errors import ProviderError
from graphhost.models import CallRequest, CallResult, ToolSpec
from graphhost.parity import assert_toolset_parity
from graphhost.settings import Settings

from .gateway import Gateway


class BaseAdapter:
    """Turns a CallRequest into one provider's wire format and back."""

    name = "base"

    def __init__(self, gateway: Gateway, settings: Settings) -> None:
        self.gateway = gateway
        self.settings = settings

    def _final_check(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> None:
        """The last comparison before anything leaves the host."""
        assert_toolset_parity(request.tools, baseline)

    def _preflight(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> None:
        """Compare a first send with the admitted tools; a replay was compared when it was first sent."""
        if request.replay_of is not None:
            return
        assert_toolset_parity(request.tools, baseline)

    def encode(self, request: CallRequest) -> dict[str, Any]:
        raise NotImplementedError

    def decode(self, raw: Mapping[str, Any]) -> CallResult:
        raise NotImplementedError

    async def complete(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> CallResult:
        raise NotImplementedError


class BindingBase:
    """A provider's rendering of a toolset, bound to one model."""

    def __init__(self, toolset: list[ToolSpec], model: str) -> None:
        self.toolset = toolset
        self.model = model


class LaneBase:
    """A route to a provider with the tools that may travel on it."""

    def __init__(self, tools: Sequence[ToolSpec], route: str) -> None:
        self.tools = list(tools)
        self.route = route


class AdapterSet:
    """Picks the adapter for a model by the model name's prefix."""

    def __init__(self, adapters: Mapping[str, BaseAdapter]) -> None:
        self._adapters = dict(adapters)

    def for_model(self, model: str) -> BaseAdapter:
        for prefix, adapter in self._adapters.items():
            if model.startswith(prefix):
                return adapter
        raise ProviderError(f"no adapter for model {model!r}")
