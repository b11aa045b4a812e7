"""The framework import gate every framework integration goes through."""

import types

import pytest

from toolsurface.guard._requires import require_version, requires

INSTALL = "toolsurface.guard.example needs Example 1.x: pip install 'toolsurface[example]'"


def test_a_missing_framework_names_what_to_install_then_why() -> None:
    with pytest.raises(ImportError) as raised, requires(INSTALL):
        import toolsurface_no_such_framework  # noqa: F401
    assert str(raised.value) == f"{INSTALL} (No module named 'toolsurface_no_such_framework')"
    assert isinstance(raised.value.__cause__, ModuleNotFoundError)


def test_what_imports_passes_through_untouched() -> None:
    with requires(INSTALL):
        import json
    assert json.dumps([]) == "[]"


@pytest.mark.parametrize(
    ("version", "found"),
    [("2.0.1", "example 2.0.1"), ("0.9", "example 0.9"), (None, "example of unknown version")],
)
def test_an_unsupported_version_is_refused_by_what_was_found(version: str | None, found: str) -> None:
    module = types.ModuleType("example")
    if version is not None:
        module.__version__ = version  # type: ignore[attr-defined]
    with pytest.raises(ImportError, match=None) as raised:
        require_version(INSTALL, module, "example", "1.")
    assert str(raised.value) == f"{INSTALL} (found {found})"


def test_a_supported_version_passes() -> None:
    module = types.ModuleType("example")
    module.__version__ = "1.5.2"  # type: ignore[attr-defined]
    require_version(INSTALL, module, "example", "1.")
