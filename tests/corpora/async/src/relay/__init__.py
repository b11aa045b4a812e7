"""Provider transports, fallback lanes, interceptors and provider adapters."""

from .interceptors import InterceptorChain, chain, register_interceptor
from .lanes import FallbackLanes, Lane
from .retry import send_with_retry
from .transport import ProviderUnavailable, Transport, TransportError

__all__ = [
    "FallbackLanes",
    "InterceptorChain",
    "Lane",
    "ProviderUnavailable",
    "Transport",
    "TransportError",
    "chain",
    "register_interceptor",
    "send_with_retry",
]
