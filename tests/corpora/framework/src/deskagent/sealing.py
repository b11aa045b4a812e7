"""Receipts of sealed requests, kept so an interrupted request can be resumed."""

from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from dataclasses import dataclass

from agentcore import Message, ModelRequest, Reservation, ToolDef

from .parity import freeze_surface


@dataclass(frozen=True)
class Receipt:
    run_id: str
    reservation: Reservation
    model: str
    surface: tuple[dict, ...]
    messages: tuple[Message, ...]
    digest: str
    sealed_at: float
    ttl: float = 900.0

    def expired(self, now: float | None = None) -> bool:
        return (now if now is not None else time.time()) > self.sealed_at + self.ttl


def request_digest(request: ModelRequest) -> str:
    body = json.dumps(
        {"model": request.model, "tools": list(freeze_surface(request.tools))},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode()).hexdigest()


def seal_request(request: ModelRequest, reservation: Reservation) -> Receipt:
    return Receipt(
        run_id=request.run_id,
        reservation=reservation,
        model=request.model,
        surface=freeze_surface(request.tools),
        messages=tuple(request.messages),
        digest=request_digest(request),
        sealed_at=time.time(),
    )


def restore_request(receipt: Receipt) -> ModelRequest:
    return ModelRequest(
        model=receipt.model,
        messages=list(receipt.messages),
        tools=[ToolDef(**copy.deepcopy(entry)) for entry in receipt.surface],
        run_id=receipt.run_id,
    )


class ReceiptStore:
    def __init__(self) -> None:
        self._receipts: dict[str, Receipt] = {}
        self._lock = threading.Lock()

    def save(self, receipt: Receipt) -> None:
        with self._lock:
            self._receipts[receipt.run_id] = receipt

    def load(self, run_id: str) -> Receipt:
        with self._lock:
            return self._receipts[run_id]
