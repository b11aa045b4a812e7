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
    FrameworkTarget("pydantic-ai:stock", "toolsurface.harness._adapters.pydantic_ai:stock", "pydantic-ai",
                    "a pydantic-ai Agent built from the contract and run offline, as the framework ships"),
    FrameworkTarget("pydantic-ai:guarded", "toolsurface.harness._adapters.pydantic_ai:guarded", "pydantic-ai",
                    "the same Agent with a guard in pydantic-ai's idiom: capability checkpoints and a final model wrapper"),
    FrameworkTarget("langchain:stock", "toolsurface.harness._adapters.langchain:stock", "langchain",
                    "a LangChain v1 create_agent with middleware, built from the contract and run offline, as the framework ships"),
    FrameworkTarget("langchain:guarded", "toolsurface.harness._adapters.langchain:guarded", "langchain",
                    "the same agent with a guard as LangChain middleware: an early checkpoint and a final wrap_model_call check"),
    FrameworkTarget("openai-agents:stock", "toolsurface.harness._adapters.openai_agents:stock", "openai-agents",
                    "an OpenAI Agents SDK Agent of FunctionTools, built from the contract and run offline, as the SDK ships"),
    FrameworkTarget("openai-agents:guarded", "toolsurface.harness._adapters.openai_agents:guarded", "openai-agents",
                    "the same agent with a guard in the SDK's idiom: run hooks, the model input filter and a checked model"),
)  # fmt: skip

#: Built-in spec names of the framework targets.
ADAPTER_TARGETS: dict[str, FrameworkTarget] = {target.spec: target for target in _TARGETS}

__all__ = ["ADAPTER_TARGETS", "FrameworkTarget"]
