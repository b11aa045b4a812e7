"""The built-in target families, each registered in pyproject.toml under the `toolsurface.targets`
entry point group by its spec prefix, as a third-party package registers its own.

A family (`TargetFamily`) turns what follows its prefix in a spec into a target: `reference:guarded`
asks the `reference` family for `guarded`. A framework family has its built-in targets, loaded from
modules of ours behind an optional extra, and the user's own agent, `FRAMEWORK:package.module:factory`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from toolsurface.common._errors import TargetError

from ._adapters import ADAPTER_TARGETS, AGENT_TARGETS


@runtime_checkable
class TargetFamily(Protocol):
    """What a `toolsurface.targets` entry point names: the targets whose specs start with its name and a colon."""

    def known(self) -> Mapping[str, str]:
        """Each name it resolves (what follows the prefix) → one line about it, for `list targets`."""
        ...

    def resolve(self, name: str) -> Any:
        """The target `name` names, or a factory that makes it when called with no arguments.
        Raise `LookupError` for a name it has no target for; the error lists `known()`."""
        ...


class ReferenceFamily:
    """`reference:NAME`: the reference pipelines and their one-flaw defect variants."""

    def known(self) -> Mapping[str, str]:
        from ._reference import REFERENCE_TARGETS

        return {spec.partition(":")[2]: _first_line(cls.__doc__) for spec, cls in REFERENCE_TARGETS.items()}

    def resolve(self, name: str) -> Any:
        from ._reference import REFERENCE_TARGETS

        return REFERENCE_TARGETS[f"reference:{name}"]  # a KeyError lists the known names


@dataclass(frozen=True, slots=True)
class FrameworkFamily:
    """`FRAMEWORK:NAME`: the built-in targets of one framework (or example host) behind its extra,
    and, for an agent framework, `FRAMEWORK:package.module:factory`, the user's own agent."""

    prefix: str

    def known(self) -> Mapping[str, str]:
        built_in = {
            target.spec.partition(":")[2]: f"{target.about} (pip install 'toolsurface[{target.extra}]')"
            for target in ADAPTER_TARGETS.values()
            if target.spec.partition(":")[0] == self.prefix
        }
        if self.prefix in AGENT_TARGETS:
            built_in["package.module:factory"] = (
                f"your own {self.prefix} agent, built by factory(tools, model)"
                f" (pip install 'toolsurface[{self.prefix}]')"
            )
        return built_in

    def resolve(self, name: str) -> Any:
        from ._slips import dotted_factory
        from ._targets import attribute  # the loader imports this module: it is imported back when used

        spec = f"{self.prefix}:{name}"
        if spec in ADAPTER_TARGETS:
            return attribute(ADAPTER_TARGETS[spec].factory, spec)
        if (slip := dotted_factory(spec)) is not None:
            raise TargetError(slip)
        if self.prefix not in AGENT_TARGETS or ":" not in name:
            raise LookupError(name)
        factory, make = attribute(name, spec), attribute(AGENT_TARGETS[self.prefix], spec)
        try:
            return make(factory, spec)
        except TypeError as error:  # the factory named is not one that makes an agent
            raise TargetError(f"{spec!r}: {error}") from None


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""


REFERENCE = ReferenceFamily()
LANGCHAIN = FrameworkFamily("langchain")
PYDANTIC_AI = FrameworkFamily("pydantic-ai")
OPENAI_AGENTS = FrameworkFamily("openai-agents")
MCP_HOST = FrameworkFamily("mcp-host")
