import pytest

from toolsurface.common._errors import TargetError
from toolsurface.harness._reference import DEFECTS, REFERENCE_TARGETS
from toolsurface.harness._targets import load_target


def test_every_reference_spec_loads():
    for spec in REFERENCE_TARGETS:
        assert load_target(spec).name == spec


def test_issue_defects_all_exist():
    assert set(DEFECTS) >= {
        "shared-ref",
        "seal-baseline",
        "hook-only-final",
        "early-only",
        "no-settle",
        "topn-drop",
        "hook-control",
        "name-keyed",
        "description-pin",
        "final-only-laundering",
        "wrong-lane-settle",
        "second-receipt",
        "drops-publication",
    }


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("reference:nope", "'reference:nope': no such reference target (known: "),
        (
            "justaname",
            "'justaname': expected 'reference:<name>', 'package.module:factory' or "
            "'<framework>:package.module:factory'",
        ),
        ("no_such_module_x:f", "'no_such_module_x:f': cannot import 'no_such_module_x': ModuleNotFoundError"),
        (
            "tests.fixtures.user_targets:missing",
            "'tests.fixtures.user_targets:missing': module 'tests.fixtures.user_targets' has no attribute 'missing'",
        ),
        (
            "tests.fixtures.user_targets:broken_factory",
            "'tests.fixtures.user_targets:broken_factory': factory raised ValueError: no host configured",
        ),
        (
            "tests.fixtures.user_targets:not_a_target",
            "'tests.fixtures.user_targets:not_a_target': int has no run(scenario, ports) method",
        ),
    ],
)
def test_bad_specs_fail_in_one_line_naming_the_option(spec, message):
    with pytest.raises(TargetError) as raised:
        load_target(spec)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)
    assert raised.value.option == "target"


def test_each_front_end_names_the_option_its_own_way():
    with pytest.raises(TargetError) as raised:
        load_target("justaname", "red_target")
    assert raised.value.lines(lambda option: f"--x-{option}") == [
        "--x-red_target 'justaname': expected 'reference:<name>', 'package.module:factory' or "
        "'<framework>:package.module:factory'"
    ]


def test_a_framework_target_loads_by_its_spec_name():
    pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'")
    assert load_target("pydantic-ai:guarded").name == "pydantic-ai:guarded"


@pytest.mark.parametrize("framework", ["langchain", "pydantic-ai", "openai-agents"])
@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        ("nothing", "has no attribute 'nothing'"),
        ("not_a_factory", "expected a factory FACTORY(model) that builds the agent with its own tools, or FACTORY"),
    ],
)
def test_an_agent_spec_that_names_no_agent_factory_is_a_one_line_error(framework, factory, expected):
    module = f"tests.fixtures.agents.{framework.replace('-', '_')}_app"
    pytest.importorskip(module, reason=f"needs the {framework} extra")
    with pytest.raises(TargetError) as error:
        load_target(f"{framework}:{module}:{factory}")
    assert expected in str(error.value)
    assert "\n" not in str(error.value)
