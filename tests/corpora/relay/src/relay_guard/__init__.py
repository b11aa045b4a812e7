"""Guardrails for relay: the interceptor chain, its policies and tool trimming."""

from relay_guard.chain import DEFAULT_CHAIN, InterceptorChain, register_interceptor
from relay_guard.interceptors import Paginator, SchemaPruner, StrictArgs, SurfacePin
from relay_guard.policies import DEFAULT_CONFIG, build_chain, with_output_reader
from relay_guard.trim import ToolTrimmer

__all__ = [
    "DEFAULT_CHAIN",
    "DEFAULT_CONFIG",
    "InterceptorChain",
    "Paginator",
    "SchemaPruner",
    "StrictArgs",
    "SurfacePin",
    "ToolTrimmer",
    "build_chain",
    "register_interceptor",
    "with_output_reader",
]
