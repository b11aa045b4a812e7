"""Guards a host installs: the tools each model call sends are exactly the tools it admitted.

`SurfaceGuard` is the one implementation; a host hands each request an `Owner` (its identity, its
owners' facts, where it is settled) and calls the request's checks at its own stages. The
framework integrations are thin layers over it, each in the framework's own idiom.
"""

from toolsurface.contract._guard import (
    Capacity,
    Estimator,
    GuardedRequest,
    SurfaceGuard,
    estimate_tokens,
    summary_of,
)
from toolsurface.contract._owner import Owner, current_owner, owning

__all__ = [
    "Capacity",
    "Estimator",
    "GuardedRequest",
    "Owner",
    "SurfaceGuard",
    "current_owner",
    "estimate_tokens",
    "owning",
    "summary_of",
]
