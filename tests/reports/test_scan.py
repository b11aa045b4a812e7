"""Scan reports: JSON valid against its documented schema, SARIF valid against SARIF 2.1.0, text exact."""

import io
import json
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from toolsurface.harness._scan import RULES, FileFailed, ScanConfig, scan_source
from toolsurface.reports import THEME
from toolsurface.reports._scan import ScanReport, scan_json, scan_sarif

ROOT = Path(__file__).resolve().parents[2]
SARIF = json.loads((ROOT / "tests" / "fixtures" / "schemas" / "sarif-2.1.0.schema.json").read_text())
SCAN_SCHEMA = json.loads((ROOT / "reports" / "scan.schema.json").read_text())
SOURCE = (
    "def take_baseline(run):\n"
    "    return recapture(list(run.tools), run)\n"
    "\n"
    "def fit(run):\n"
    "    run.tools = run.tools[:8]  # toolsurface: ignore[TS107]\n"
)


def report(tmp_path):
    path = tmp_path / "host.py"
    path.write_text(SOURCE)
    results = [scan_source(SOURCE, str(path), ScanConfig()), FileFailed(str(tmp_path / "bad.py"), f"{tmp_path / 'bad.py'}:3:1: cannot parse: x")]
    return ScanReport.build(results)


def test_json_is_the_documented_format(tmp_path):
    document = scan_json(report(tmp_path))
    jsonschema.validate(document, SCAN_SCHEMA)
    assert [(f["rule"], f["line"], f["suppressed"]) for f in document["findings"]] == [("TS104", 2, False), ("TS107", 5, True)]
    assert document["failures"][0]["problem"].endswith("bad.py:3:1: cannot parse: x")


def test_sarif_validates_and_carries_what_code_scanning_reads(tmp_path):
    log = scan_sarif(report(tmp_path), tmp_path, "1.2.3")
    jsonschema.validate(log, SARIF)
    (run,) = log["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [rule.id for rule in RULES]
    first, second = run["results"]
    assert first["ruleId"] == "TS104" and run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "TS104"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "host.py", "uriBaseId": "%SRCROOT%"}
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (2, 5)
    assert first["partialFingerprints"]["primaryLocationLineHash"].endswith(":1")
    assert "suppressions" not in first and second["suppressions"][0]["kind"] == "inSource"
    assert run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"


def test_fingerprints_survive_an_unrelated_edit_above(tmp_path):
    before = scan_sarif(report(tmp_path), tmp_path, "1")["runs"][0]["results"][0]["partialFingerprints"]
    shifted = "import os\n\n" + SOURCE
    moved = ScanReport.build([scan_source(shifted, str(tmp_path / "host.py"), ScanConfig())])
    after = scan_sarif(moved, tmp_path, "1")["runs"][0]["results"][0]
    assert after["partialFingerprints"] == before and after["locations"][0]["physicalLocation"]["region"]["startLine"] == 4


def test_text_lists_active_findings_with_their_line_and_a_summary(tmp_path):
    console = Console(file=io.StringIO(), width=400, color_system=None, theme=THEME)  # wide: a tmp path under xdist is long
    console.print(report(tmp_path))
    lines = console.file.getvalue().splitlines()
    message = next(rule.message for rule in RULES if rule.id == "TS104")
    assert lines[0] == f"{tmp_path / 'host.py'}:2:5 TS104 shared-baseline: {message}"
    assert lines[1] == "    return recapture(list(run.tools), run)"
    assert lines[2] == f"error: {tmp_path / 'bad.py'}:3:1: cannot parse: x"
    assert lines[3] == "1 findings (TS104 ×1), 1 suppressed, 1 files not scanned; 1 of 2 files parsed"


def test_the_schemas_tests_use_are_the_shared_reference_copies():
    shared = ROOT.parent / "shared" / "schemas"
    if not shared.is_dir():
        pytest.skip(f"{shared} is not beside this checkout; the copies in tests/fixtures/schemas are used as they are")
    for name in ("sarif-2.1.0.schema.json", "stryker-mutation-testing-report.schema.json"):
        assert (ROOT / "tests" / "fixtures" / "schemas" / name).read_bytes() == (shared / name).read_bytes(), name
