"""Plugins: the middleware registry and the middleware that ships with the host."""

from .registry import CallContext, MiddlewareRegistry, default_registry, register_middleware
from . import builtin  # noqa: F401  (registers the built-in middleware)
from .paging import fetch_tool_output

__all__ = ["CallContext", "MiddlewareRegistry", "default_registry", "fetch_tool_output", "register_middleware"]
