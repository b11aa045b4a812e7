"""Built-in targets behind an optional extra: real agent frameworks, and the reference MCP host.
The framework target families (`_families`, entry points by spec prefix) resolve specs from these tables.

Nothing here imports a framework: a target module does so itself, and raises an `ImportError`
naming the extra to install when the framework is missing.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FrameworkTarget:
    """A built-in target spec for a module of ours behind an extra, loaded as a `package.module:factory` is."""

    spec: str
    factory: str
    #: The optional dependency group that installs the framework.
    extra: str
    about: str


_TARGETS = (
    FrameworkTarget(
        "pydantic-ai:stock",
        "toolsurface.harness._adapters.pydantic_ai:stock",
        "pydantic-ai",
        "a pydantic-ai Agent built from the contract and run offline, as the framework ships",
    ),
    FrameworkTarget(
        "pydantic-ai:guarded",
        "toolsurface.harness._adapters.pydantic_ai:guarded",
        "pydantic-ai",
        "the same Agent with a guard in pydantic-ai's idiom: capability checkpoints and a final model wrapper",
    ),
    FrameworkTarget(
        "langchain:stock",
        "toolsurface.harness._adapters.langchain:stock",
        "langchain",
        "a LangChain v1 create_agent with middleware, built from the contract and run offline, as the framework ships",
    ),
    FrameworkTarget(
        "langchain:guarded",
        "toolsurface.harness._adapters.langchain:guarded",
        "langchain",
        "the same agent with a guard as LangChain middleware: an early checkpoint and a final wrap_model_call check",
    ),
    FrameworkTarget(
        "openai-agents:stock",
        "toolsurface.harness._adapters.openai_agents:stock",
        "openai-agents",
        "an OpenAI Agents SDK Agent of FunctionTools, built from the contract and run offline, as the SDK ships",
    ),
    FrameworkTarget(
        "openai-agents:guarded",
        "toolsurface.harness._adapters.openai_agents:guarded",
        "openai-agents",
        "the same agent with the public guard, toolsurface.guard.openai_agents: run hooks and a checked model",
    ),
    # The example host is shipped (toolsurface.examples.mcp_host) so a plain install runs it by these names.
    FrameworkTarget(
        "mcp-host:guarded",
        "toolsurface.examples.mcp_host.adapter:guarded",
        "mcp-host",
        "the reference MCP host with its guard: MCP discovery, its own stages, sent through the OpenAI SDK",
    ),
    FrameworkTarget(
        "mcp-host:unguarded",
        "toolsurface.examples.mcp_host.adapter:unguarded",
        "mcp-host",
        "the same host with its guard removed, sent through the OpenAI SDK",
    ),
    FrameworkTarget(
        "mcp-host:guarded-anthropic",
        "toolsurface.examples.mcp_host.adapter:guarded_anthropic",
        "mcp-host",
        "the reference MCP host with its guard, sent through the Anthropic SDK",
    ),
    FrameworkTarget(
        "mcp-host:unguarded-anthropic",
        "toolsurface.examples.mcp_host.adapter:unguarded_anthropic",
        "mcp-host",
        "the same host with its guard removed, sent through the Anthropic SDK",
    ),
)

#: Built-in spec names of the targets behind an extra.
ADAPTER_TARGETS: dict[str, FrameworkTarget] = {target.spec: target for target in _TARGETS}

#: The top-level packages each extra installs that an agent's code imports: a module that fails to
#: import one of them is told which extra installs it. (`openai` comes with two of them.)
EXTRA_PACKAGES: dict[str, frozenset[str]] = {
    "langchain": frozenset({"langchain", "langchain_core", "langgraph", "langsmith"}),
    "pydantic-ai": frozenset({"pydantic_ai", "pydantic_graph"}),
    "openai-agents": frozenset({"agents", "openai"}),
    "mcp-host": frozenset({"mcp", "openai", "anthropic", "httpx2"}),
}


def extra_installing(module: str, prefix: str = "") -> str | None:
    """The extra that installs the package of `module` (a dotted name): the one the spec's own
    prefix names where that installs it, else the only extra that does; None when none or several do."""
    package = module.partition(".")[0]
    if package in EXTRA_PACKAGES.get(prefix, ()):
        return prefix
    extras = [extra for extra, packages in EXTRA_PACKAGES.items() if package in packages]
    return extras[0] if len(extras) == 1 else None


#: `FRAMEWORK:package.module:factory`: the user's own agent, by the module that makes it a target.
AGENT_TARGETS: dict[str, str] = {
    "langchain": "toolsurface.harness._adapters.langchain_agent:target",
    "openai-agents": "toolsurface.harness._adapters.openai_agents_agent:target",
    "pydantic-ai": "toolsurface.harness._adapters.pydantic_ai_agent:target",
}

__all__ = ["ADAPTER_TARGETS", "AGENT_TARGETS", "EXTRA_PACKAGES", "FrameworkTarget", "extra_installing"]
