"""A target spec that is a near miss of a form that works gets one line naming that form; a module
that needs a framework not installed gets one line naming the extra that installs it."""

import subprocess
import sys
import textwrap

import pytest

from toolsurface.common._errors import TargetError
from toolsurface.harness._adapters import EXTRA_PACKAGES, extra_installing
from toolsurface.harness._targets import load_target

#: A module of the user's whose agent factory names no framework it imports at the top.
FACTORY = "def build(tools, model):\n    raise AssertionError('never called by a spec that fails')\n"


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write `name.py` into a folder on sys.path (the loader forgets what it imported after each load)."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name, source):
        (tmp_path / f"{name}.py").write_text(source)

    return write


def error_of(spec):
    with pytest.raises(TargetError) as raised:
        load_target(spec)
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("langchain:slip_app.build", "langchain:MODULE:FACTORY, e.g. langchain:slip_app:build"),
        ("pydantic_ai:slip_app:build", "pydantic-ai:MODULE:FACTORY, e.g. pydantic-ai:slip_app:build"),
        ("openai_agents:slip_app:build", "openai-agents:MODULE:FACTORY, e.g. openai-agents:slip_app:build"),
        ("LangChain:slip_app:build", "langchain:MODULE:FACTORY, e.g. langchain:slip_app:build"),
        ("langchian:slip_app:build", "langchain:MODULE:FACTORY, e.g. langchain:slip_app:build"),
        ("pydantic_ai:stock", "pydantic-ai:NAME, e.g. pydantic-ai:stock"),
        ("acme:slip_app:build", "FRAMEWORK:MODULE:FACTORY, FRAMEWORK one of langchain, openai-agents, pydantic-ai"),
    ],
)
def test_a_near_miss_names_the_form_that_works(user_module, spec, expected):
    user_module("slip_app", FACTORY)
    assert error_of(spec) == f"{spec!r}: expected {expected}"


def test_an_agent_factory_named_without_a_framework_is_told_to_name_one(user_module):
    user_module("slip_app", FACTORY)
    assert error_of("slip_app:build") == (
        "'slip_app:build': build(tools, model) looks like an agent factory: expected FRAMEWORK:MODULE:FACTORY, "
        "FRAMEWORK one of langchain, openai-agents, pydantic-ai, e.g. langchain:slip_app:build"
    )


def test_an_agent_factory_without_its_framework_is_named_by_the_framework_it_imports(user_module):
    pytest.importorskip("langchain.agents", reason="needs the langchain extra")
    user_module("slip_lc", "from langchain.agents import create_agent\n\n" + FACTORY)
    assert error_of("slip_lc:build") == (
        "'slip_lc:build': build(tools, model) is a langchain agent factory: "
        "expected langchain:MODULE:FACTORY, e.g. langchain:slip_lc:build"
    )


def test_an_agent_itself_is_not_a_target(user_module):
    pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra")
    user_module("slip_pa", "from pydantic_ai import Agent\n\nagent = Agent('test')\n")
    assert error_of("slip_pa:agent") == (
        "'slip_pa:agent': Agent is a pydantic-ai agent, not a target: expected pydantic-ai:MODULE:FACTORY "
        "with FACTORY(tools, model) returning the agent, e.g. pydantic-ai:slip_pa:build"
    )


def test_a_spec_that_works_is_not_second_guessed(user_module):
    # A user's module may be named like a family and hold a target: it loads as the module it is.
    user_module("mcp_host", "from tests.fixtures.user_targets import Adapter\n\nguarded = Adapter\n")
    assert type(load_target("mcp_host:guarded")).__name__ == "Adapter"
    # A factory with a default for its second argument is called with nothing, as any factory is.
    user_module(
        "slip_defaults",
        "from tests.fixtures.user_targets import Adapter\n\ndef build(tools=(), model=None):\n    return Adapter()\n",
    )
    assert type(load_target("slip_defaults:build")).__name__ == "Adapter"


def test_each_framework_package_is_installed_by_one_extra_or_by_the_spec_s():
    assert extra_installing("langchain_core.messages") == "langchain"
    assert extra_installing("agents") == "openai-agents"
    assert extra_installing("openai") is None  # two extras install it: neither is named without a spec's
    assert extra_installing("openai", "mcp-host") == "mcp-host"
    assert extra_installing("requests") is None
    assert set(EXTRA_PACKAGES) == {"langchain", "pydantic-ai", "openai-agents", "mcp-host"}


#: Runs the command with the frameworks unimportable, as they are where no extra is installed.
WITHOUT_FRAMEWORKS = textwrap.dedent(
    """
    import sys

    class NotInstalled:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {"langchain", "langchain_core", "langgraph", "pydantic_ai", "agents", "mcp"}:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, NotInstalled())
    sys.argv = ["toolsurface", *sys.argv[1:]]
    from toolsurface.cli import main
    main()
    """
)


@pytest.mark.parametrize(
    ("spec", "extra"),
    [
        ("langchain:needs_lc:build", "langchain"),  # the user's module imports the framework first
        ("needs_lc:build", "langchain"),
        ("pydantic-ai:guarded", "pydantic-ai"),  # a built-in target's own gate
        ("openai-agents:slip_app:build", "openai-agents"),  # the agent target's gate, the user's module imported
    ],
)
def test_a_framework_not_installed_is_one_line_naming_its_extra(tmp_path, spec, extra):
    (tmp_path / "needs_lc.py").write_text("from langchain.agents import create_agent\n\n" + FACTORY)
    (tmp_path / "slip_app.py").write_text(FACTORY)
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_FRAMEWORKS, "list", "cases", "--target", spec],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: --target {spec!r}: ")
    assert done.stderr.count("\n") == 1
    assert f"pip install 'toolsurface[{extra}]'" in done.stderr
