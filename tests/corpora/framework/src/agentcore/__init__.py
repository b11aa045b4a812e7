"""agentcore: the small agent runtime the desk hosts are built on.

It stands in for the framework layer (models, tools, toolsets, middleware, hooks, a ledger
and the provider gateway) so that host code can be written against familiar shapes.
"""

from .agent import AgentSpec
from .errors import AgentError, CapacityExceeded, ProviderError, RequestRefused, SurfaceDrift
from .gateway import HttpTransport, ModelGateway, plain_encoder
from .hooks import HookRegistry, default_registry, register_hook
from .ledger import Ledger, Reservation, SettlementError
from .middleware import AgentMiddleware, Message, ModelRequest, ModelResponse, compose
from .models import BaseModel, Field
from .schema import clone_schema, ensure_strict, inline_refs, json_schema_for
from .tools import AbstractToolset, BoundTool, CombinedToolset, FunctionToolset, StaticToolset, ToolDef, tool

__all__ = [
    "AbstractToolset",
    "AgentError",
    "AgentMiddleware",
    "AgentSpec",
    "BaseModel",
    "BoundTool",
    "CapacityExceeded",
    "CombinedToolset",
    "Field",
    "FunctionToolset",
    "HookRegistry",
    "HttpTransport",
    "Ledger",
    "Message",
    "ModelGateway",
    "ModelRequest",
    "ModelResponse",
    "ProviderError",
    "RequestRefused",
    "Reservation",
    "SettlementError",
    "StaticToolset",
    "SurfaceDrift",
    "ToolDef",
    "clone_schema",
    "compose",
    "default_registry",
    "ensure_strict",
    "inline_refs",
    "json_schema_for",
    "plain_encoder",
    "register_hook",
    "tool",
]
