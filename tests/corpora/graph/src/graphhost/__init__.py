"""Graph host: runs a graph of nodes over a shared state and calls model providers."""

from .errors import BudgetRefused, HostError, ProviderError, TooManyTools, ToolsetDrift
from .models import CallRequest, CallResult, Message, ToolCall, ToolResult, ToolSpec, Toolset, Usage
from .parity import assert_toolset_parity, diff_toolsets, freeze_toolset, verify_toolset
from .settings import SETTINGS, Settings

__all__ = [
    "BudgetRefused",
    "CallRequest",
    "CallResult",
    "HostError",
    "Message",
    "ProviderError",
    "SETTINGS",
    "Settings",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Toolset",
    "TooManyTools",
    "ToolsetDrift",
    "Usage",
    "assert_toolset_parity",
    "diff_toolsets",
    "freeze_toolset",
    "verify_toolset",
]
