"""The desk's agents."""

from __future__ import annotations

from typing import Sequence

from agentcore import AgentSpec, ToolDef

RESEARCH_INSTRUCTIONS = (
    "You research listed instruments for the desk. Cite every source you read and say when "
    "a figure could not be confirmed."
)


class DeskAgent(AgentSpec):
    """An agent working for one desk."""

    desk: str = "research"
    max_turns: int = 8

    def as_child(self, name: str, instructions: str) -> "DeskAgent":
        """A child agent for a sub-task: same model and tools, its own name and instructions."""
        return self.model_copy(update={"name": name, "instructions": instructions, "desk": f"{self.desk}/child"})

    def handoff(self) -> ToolDef:
        """The tool a parent agent calls to hand a task to this agent."""
        return ToolDef(
            name=f"handoff__{self.name}",
            description=f"Hand the task to the {self.name} agent ({self.desk} desk).",
            parameters={"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]},
        )


def research_agent(catalogue: Sequence[ToolDef], *, name: str = "research", model: str = "gpt-4.1") -> DeskAgent:
    """The desk's main research agent over the given catalogue."""
    return DeskAgent(name=name, model=model, instructions=RESEARCH_INSTRUCTIONS, tools=list(catalogue))
