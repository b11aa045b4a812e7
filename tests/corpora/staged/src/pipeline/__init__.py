"""The staged request pipeline: admission, availability, context fit, seal, dispatch."""

from support.errors import CapacityExceeded, ProviderError, Refusal, RequestRefused, SurfaceDrift

from .admission import BASELINES, AdmissionStage, AdmittedSet, StaticAdmissionStage
from .availability import AvailabilityStage
from .base import BaseStage
from .child import ChildLane, ChildRequest
from .context import RequestContext, Services
from .context_fit import ContextFitStage
from .dispatch import DispatchStage, StreamingDispatchStage
from .facts import Binding, FactFeed, OwnerFact, feed
from .hooks import HookBus, bus
from .recovery import RecoveryStage
from .request import ModelRequest, SealedRequest
from .retry import RetryingSender
from .runner import PipelineRunner
from .seal import SealStage, seal_request
from .selection import ToolSelector
from .settings import Settings, load_settings

__all__ = [
    "BASELINES",
    "AdmissionStage",
    "AdmittedSet",
    "AvailabilityStage",
    "BaseStage",
    "Binding",
    "CapacityExceeded",
    "ChildLane",
    "ChildRequest",
    "ContextFitStage",
    "DispatchStage",
    "FactFeed",
    "HookBus",
    "ModelRequest",
    "OwnerFact",
    "PipelineRunner",
    "ProviderError",
    "RecoveryStage",
    "Refusal",
    "RequestContext",
    "RequestRefused",
    "RetryingSender",
    "SealStage",
    "SealedRequest",
    "Services",
    "Settings",
    "StaticAdmissionStage",
    "StreamingDispatchStage",
    "SurfaceDrift",
    "ToolSelector",
    "bus",
    "feed",
    "load_settings",
    "seal_request",
]
