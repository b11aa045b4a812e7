"""Process-wide singletons: the gateway, the ledger and the named request stages."""

from __future__ import annotations

import functools
import os
from typing import Any, Callable

from agentcore import HttpTransport, Ledger, ModelGateway
from desktools import convert_all

from .sealing import restore_request, seal_request

GATEWAY = ModelGateway(
    HttpTransport(os.environ.get("DESK_MODEL_ENDPOINT", "http://127.0.0.1:8080/v1/chat/completions")),
    provider="openai",
    encoder=functools.partial(convert_all, provider="openai"),
)
LEDGER = Ledger("desk")

send_to_provider = GATEWAY.invoke_model

STAGES: dict[str, Callable[..., Any]] = {
    "seal": seal_request,
    "restore": restore_request,
    "send": send_to_provider,
}
