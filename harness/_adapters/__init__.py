"""Targets around real agent frameworks, each behind an optional extra.

Nothing here imports a framework: a target module does so itself, and raises an `ImportError`
naming the extra to install when the framework is missing.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FrameworkTarget:
    """A built-in target spec that loads a framework adapter, as a `package.module:factory` is loaded."""

    spec: str
    factory: str
    #: The optional dependency group that installs the framework.
    extra: str
    about: str


_TARGETS = (
    FrameworkTarget("pydantic-ai:stock", "harness._adapters.pydantic_ai:stock", "pydantic-ai",
                    "a pydantic-ai Agent built from the contract and run offline, as the framework ships"),
    FrameworkTarget("pydantic-ai:guarded", "harness._adapters.pydantic_ai:guarded", "pydantic-ai",
                    "the same Agent with a guard in pydantic-ai's idiom: capability checkpoints and a final model wrapper"),
)  # fmt: skip

#: Built-in spec names of the framework targets.
ADAPTER_TARGETS: dict[str, FrameworkTarget] = {target.spec: target for target in _TARGETS}

__all__ = ["ADAPTER_TARGETS", "FrameworkTarget"]
