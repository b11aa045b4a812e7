"""Each package's public surface is exactly its `__all__`, and the registries behind it are complete."""

import importlib
import inspect

import pytest

from toolsurface import harness
from toolsurface.harness._reference import DEFECTS, REFERENCE_TARGETS, GuardedPipeline


@pytest.mark.parametrize("name", ["harness", "mutators", "scenarios", "reports"])
def test_all_names_exist_and_nothing_public_is_left_out(name):
    package = importlib.import_module(f"toolsurface.{name}")
    assert sorted(set(package.__all__)) == sorted(package.__all__)
    assert all(hasattr(package, symbol) for symbol in package.__all__)
    public = {n for n, v in vars(package).items() if not n.startswith("_") and not inspect.ismodule(v)}
    public -= {"annotations"}
    assert public <= set(package.__all__), public - set(package.__all__)


def test_every_pipeline_class_is_a_registered_target():
    module = importlib.import_module("toolsurface.harness._reference._defects")
    classes = {c for c in vars(module).values() if inspect.isclass(c) and issubclass(c, GuardedPipeline)}
    assert classes - {GuardedPipeline} == set(DEFECTS.values())
    assert set(REFERENCE_TARGETS.values()) == classes | {harness.REFERENCE_TARGETS["reference:legacy"]}
