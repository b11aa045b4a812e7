"""Recorded request pipelines: their value types, their JSON Schema, and the loader."""

from ._errors import ScenarioError
from ._loader import bundled_dir, load, load_file, parse
from ._model import (
    POINTS,
    Contract,
    Identity,
    Lane,
    Message,
    Publication,
    Scenario,
    Stage,
    StageKind,
    ToolDescriptor,
)

__all__ = [
    "POINTS",
    "Contract",
    "Identity",
    "Lane",
    "Message",
    "Publication",
    "Scenario",
    "ScenarioError",
    "Stage",
    "StageKind",
    "ToolDescriptor",
    "bundled_dir",
    "load",
    "load_file",
    "parse",
]
