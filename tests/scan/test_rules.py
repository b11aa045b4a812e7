"""Every rule's own examples are its tests: valid source gives nothing, invalid source gives
exactly one finding at the line the example names."""

import inspect
import re

import pytest

from toolsurface.scan import RULES, Rule, ScanConfig, scan_source
from toolsurface.scan import rules as rule_package

CONFIG = ScanConfig()
VALID = [pytest.param(rule, code, id=f"{rule.id}-valid-{i}") for rule in RULES for i, code in enumerate(rule.valid)]
INVALID = [pytest.param(rule, ex, id=f"{rule.id}-invalid-{i}") for rule in RULES for i, ex in enumerate(rule.invalid)]


@pytest.mark.parametrize(("rule", "code"), VALID)
def test_valid_examples_give_no_finding(rule: Rule, code: str) -> None:
    result = scan_source(code, "valid.py", CONFIG, [rule])
    assert result.findings == ()


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_invalid_examples_give_one_finding_at_their_line(rule: Rule, example) -> None:
    result = scan_source(example.code, "invalid.py", CONFIG, [rule])
    assert [(f.rule, f.line) for f in result.findings] == [(rule.id, example.line)]
    (finding,) = result.findings
    assert finding.source == example.code.splitlines()[example.line - 1]
    assert finding.message == rule.message and finding.name == rule.name
    # The flow ends where the finding is; an example that names its flow gets exactly that flow.
    assert (finding.flow[-1].line, finding.flow[-1].column) == (finding.line, finding.column)
    assert all(step.label for step in finding.flow)
    if example.flow:
        assert [(step.line, step.label) for step in finding.flow] == list(example.flow)


#: Rules whose findings have nothing before the reported node: a malformed comment is its own source.
SINK_ONLY = {"TS100"}


@pytest.mark.parametrize("rule", [rule for rule in RULES if rule.id not in SINK_ONLY], ids=lambda rule: rule.id)
def test_every_rule_with_a_source_names_it_in_an_example(rule: Rule) -> None:
    named = [example for example in rule.invalid if len(example.flow) > 1]
    assert named, f"{rule.id}: no invalid example states its flow from source to sink"


def test_every_rule_class_is_registered_once_in_id_order() -> None:
    classes = {
        cls for _, cls in inspect.getmembers(rule_package, inspect.isclass) if issubclass(cls, Rule) and cls is not Rule
    }
    assert {type(rule) for rule in RULES} == classes
    ids = [rule.id for rule in RULES]
    assert ids == sorted(set(ids))
    assert set(rule_package.__all__) == {cls.__name__ for cls in classes} | {"RULES", "BUILT_IN"}


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_rules_read_well(rule: Rule) -> None:
    assert re.fullmatch(r"TS1\d\d", rule.id)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.name)
    assert rule.message[0].islower() and not rule.message.endswith(".")
    assert rule.valid and rule.invalid
    # One class per file, named like its class.
    module = type(rule).__module__.rsplit(".", 1)[-1]
    assert module.replace("_", "") == type(rule).__name__.lower()
