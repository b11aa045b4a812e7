"""A third-party package that ships a target family and a rule pack through entry points, found by
its metadata alone: through the API, and end to end through the installed command."""

import os
import re
import sys

import pytest

from tests.fixtures.third_party import BOTH, install
from tests.test_cli import SMALL, toolsurface
from toolsurface.common._errors import PluginError, TargetError
from toolsurface.harness._plan import plan
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import listed_targets, load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.scan import RULES, ScanConfig, registered_rules, scan_source
from toolsurface.scan._config import unknown_rules
from toolsurface.scenarios import load


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on `sys.path` for the package; the rule registry and the import of it are forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registered_rules.cache_clear()
    yield tmp_path
    registered_rules.cache_clear()
    sys.modules.pop("acme_pack", None)


def test_a_third_party_target_runs_by_its_own_prefix(site):
    install(site, BOTH)
    target = load_target("acme:guarded")
    scenario = load([SMALL])
    cases = [case for case in plan(scenario, seed=0) if not case.equivalent][:3]
    verdicts = [result.verdict.kind for result in Runner(scenario, target).run(cases)]
    assert verdicts and all(kind in (VerdictKind.KILLED, VerdictKind.PASSED) for kind in verdicts)
    assert ("acme:guarded", "Acme's guarded host") in listed_targets()


def test_a_name_the_family_does_not_have_lists_those_it_has(site):
    install(site, BOTH)
    with pytest.raises(TargetError) as raised:
        load_target("acme:stock", "red_target")
    assert str(raised.value) == "'acme:stock': no such acme target (known: acme:guarded)"
    assert raised.value.option == "red_target"


def test_our_own_families_are_entry_points_too():
    listed = dict(listed_targets())
    assert {"reference:guarded", "langchain:stock", "pydantic-ai:guarded", "openai-agents:guarded"} <= set(listed)
    assert "mcp-host:guarded" in listed and "langchain:package.module:factory" in listed
    with pytest.raises(TargetError, match=r"^'langchain:nothing': no such langchain target \(known: .*langchain:stock"):
        load_target("langchain:nothing")


def test_a_family_that_fails_names_the_spec_and_its_entry_point(site):
    from tests.fixtures.third_party import PACKAGE

    install(site, BOTH, PACKAGE.replace("raise LookupError(name)", "raise OSError('no licence server')"))
    with pytest.raises(TargetError) as raised:
        load_target("acme:stock")
    assert str(raised.value) == (
        "'acme:stock': entry point toolsurface.targets:acme = 'acme_pack:FAMILY' (acme-pack) raised "
        "OSError: no licence server"
    )
    assert raised.value.option == "target"


@pytest.mark.parametrize(
    ("entry_points", "expected"),
    [
        (
            "[toolsurface.targets]\nacme = acme_pack:MISSING\n",
            "entry point toolsurface.targets:acme = 'acme_pack:MISSING' (acme-pack): cannot load it: AttributeError:",
        ),
        (
            "[toolsurface.targets]\nacme = acme_pack:RULES\n",
            "entry point toolsurface.targets:acme = 'acme_pack:RULES' (acme-pack): expected a target family",
        ),
        (
            "[toolsurface.targets]\nreference = acme_pack:FAMILY\n",
            "'reference' is also registered by entry point toolsurface.targets:reference",
        ),
    ],
)
def test_a_broken_family_is_one_line_naming_its_entry_point(site, entry_points, expected):
    install(site, entry_points)
    with pytest.raises(PluginError) as raised:
        load_target("acme:guarded" if "acme =" in entry_points else "reference:guarded")
    assert expected in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_rule_pack_runs_beside_ours_and_its_ids_are_known(site):
    install(site, BOTH)
    rules = registered_rules()
    assert [rule.id for rule in rules] == [*(rule.id for rule in RULES), "TS901"]
    found = scan_source("x = eval(text)\n", "model.py", ScanConfig())
    assert [(finding.rule, finding.line) for finding in found.findings] == [("TS901", 1)]
    quiet = scan_source("x = eval(text)  # toolsurface: ignore[TS901]\n", "model.py", ScanConfig())
    assert [finding.suppressed for finding in quiet.findings] == [True]  # the pack's id silences its rule
    unknown_rules(["TS901"])  # a known id now: `--select TS901` is accepted


@pytest.mark.parametrize(
    ("pack", "expected"),
    [
        ("RULES = [NoEval, int]", "expected a sequence of Rule classes, found <class 'int'> in it"),
        ("RULES = NoEval", "expected a sequence of Rule classes, found ABCMeta"),
        ("NoEval.id = 'TS104'\nRULES = [NoEval]", "rule id TS104 is already toolsurface's"),
        ("NoEval.id = 'ACME1'\nRULES = [NoEval]", "NoEval.id must look like TS901"),
        ("raise RuntimeError('no\\nlicence')", "cannot load it: RuntimeError: no licence"),
    ],
)
def test_a_broken_rule_pack_is_one_line_naming_its_entry_point(site, pack, expected):
    from tests.fixtures.third_party import PACKAGE

    install(site, "[toolsurface.rules]\nacme = acme_pack:RULES\n", PACKAGE.replace("RULES = [NoEval]", pack))
    with pytest.raises(PluginError) as raised:
        registered_rules()
    message = str(raised.value)
    assert message.startswith("entry point toolsurface.rules:acme = 'acme_pack:RULES' (acme-pack): ")
    assert expected in message and "\n" not in message


def _with_pack(site):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def test_the_installed_command_lists_the_target_and_scans_with_the_pack(site, monkeypatch):
    install(site, BOTH)
    (site / "model.py").write_text("answer = eval(reply)\n")
    monkeypatch.setenv("PYTHONPATH", _with_pack(site)["PYTHONPATH"])
    listed = toolsurface("list", "targets")
    assert listed.returncode == 0 and re.search(r"^acme:guarded\s+Acme's guarded host$", listed.stdout, re.M)
    scanned = toolsurface("scan", str(site / "model.py"), "--select", "TS901")
    assert scanned.returncode == 1, scanned.stderr
    assert "TS901" in scanned.stdout


def test_help_imports_no_pack(site, monkeypatch):
    install(site, BOTH.replace("acme_pack:", "acme_broken:"))
    (site / "acme_broken.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.setenv("PYTHONPATH", _with_pack(site)["PYTHONPATH"])
    shown = toolsurface("--help")
    assert shown.returncode == 0 and "imported" not in shown.stdout + shown.stderr
    broken = toolsurface("list", "targets")
    assert broken.returncode == 2
    assert broken.stderr.count("\n") == 1
    (site / "model.py").write_text("answer = eval(reply)\n")
    scanned = toolsurface("scan", str(site / "model.py"))
    assert scanned.returncode == 2 and scanned.stderr.count("\n") == 1
    assert "entry point toolsurface.rules:acme = 'acme_broken:RULES' (acme-pack): cannot load it" in scanned.stderr
    assert (
        "entry point toolsurface.targets:acme = 'acme_broken:FAMILY' (acme-pack): cannot load it: "
        "RuntimeError: imported" in broken.stderr
    )
