"""deskagent: the research desk's agent host.

Requests are admitted, passed through hooks and middleware, fitted to the model's context,
checked against the surface admitted for them and sent through the provider gateway; every
reservation is settled once, however the request ends.
"""

from .parity import assert_surface_unchanged, diff_specs, freeze_surface
from .pipeline import RequestPipeline
from .wiring import Desk, build_desk

__all__ = [
    "Desk",
    "RequestPipeline",
    "assert_surface_unchanged",
    "build_desk",
    "diff_specs",
    "freeze_surface",
]
