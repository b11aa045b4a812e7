"""Utilities shared by the pipeline, billing and provider layers."""

from .copying import clone_tools, snapshot_schema, snapshot_tools
from .diffing import canonical, diff_specs, surface_digest
from .errors import CapacityExceeded, ProviderError, Refusal, RequestRefused, SurfaceDrift
from .parity import confirm_unchanged, drift_report, ensure_parity, names_match, verify_surface_parity
from .registry import ToolEntry, ToolRegistry, ToolSet, builtin_tools, register_builtin
from .schema import inline_refs, normalized_copy, strictify
from .tokens import compress_messages, estimate_tokens, trim_to_budget

__all__ = [
    "CapacityExceeded",
    "ProviderError",
    "Refusal",
    "RequestRefused",
    "SurfaceDrift",
    "ToolEntry",
    "ToolRegistry",
    "ToolSet",
    "builtin_tools",
    "canonical",
    "clone_tools",
    "compress_messages",
    "confirm_unchanged",
    "diff_specs",
    "drift_report",
    "ensure_parity",
    "estimate_tokens",
    "inline_refs",
    "names_match",
    "normalized_copy",
    "register_builtin",
    "snapshot_schema",
    "snapshot_tools",
    "strictify",
    "surface_digest",
    "trim_to_budget",
    "verify_surface_parity",
]
