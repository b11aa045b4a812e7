"""Scan reports: JSON valid against its documented schema, SARIF valid against SARIF 2.1.0, text exact."""

import dataclasses
import io
import json
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from toolsurface.reports import THEME
from toolsurface.reports._scan import ScanReport, scan_json, scan_sarif
from toolsurface.scan import (
    RULES,
    FileFailed,
    FileSkipped,
    ScanConfig,
    Step,
    scan_source,
)

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
    results = [
        scan_source(SOURCE, str(path), ScanConfig()),
        FileFailed(str(tmp_path / "bad.py"), f"{tmp_path / 'bad.py'}:3:1: cannot parse: x"),
    ]
    return ScanReport.build(results)


def test_json_is_the_documented_format(tmp_path):
    document = scan_json(report(tmp_path))
    jsonschema.validate(document, SCAN_SCHEMA)
    assert [(f["rule"], f["line"], f["suppressed"]) for f in document["findings"]] == [
        ("TS104", 2, False),
        ("TS107", 5, True),
    ]
    assert [f["flow"] for f in document["findings"]] == [
        [
            {"line": 2, "column": 27, "label": "tool list `run.tools`"},
            {"line": 2, "column": 5, "label": "returned as the baseline, shared"},
        ],
        [
            {"line": 4, "column": 9, "label": "parameter `run`"},
            {"line": 5, "column": 17, "label": "cut by `run.tools[:8]`"},
        ],
    ]
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
    # The flow is one thread flow, step by step, in the finding's file.
    ((thread,),) = [flow["threadFlows"] for flow in second["codeFlows"]]
    assert [
        (
            step["location"]["physicalLocation"]["region"],
            step["location"]["message"]["text"],
            step["location"]["physicalLocation"]["artifactLocation"],
        )
        for step in thread["locations"]
    ] == [
        ({"startLine": 4, "startColumn": 9}, "parameter `run`", {"uri": "host.py", "uriBaseId": "%SRCROOT%"}),
        ({"startLine": 5, "startColumn": 17}, "cut by `run.tools[:8]`", {"uri": "host.py", "uriBaseId": "%SRCROOT%"}),
    ]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert (
        run["invocations"][0]["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
            "uri"
        ]
        == "bad.py"
    )


def test_a_malformed_suppression_is_a_result_of_its_own_in_every_format(tmp_path):
    source = SOURCE.replace("ignore[TS107]", "ignore[ts107]")
    result = ScanReport.build([scan_source(source, str(tmp_path / "host.py"), ScanConfig())])
    assert [(f.rule, f.line, f.suppressed) for f in result.findings] == [
        ("TS104", 2, False),
        ("TS107", 5, False),
        ("TS100", 5, False),
    ]
    assert [f["rule"] for f in scan_json(result)["findings"]] == ["TS104", "TS107", "TS100"]
    log = scan_sarif(result, tmp_path, "1")
    jsonschema.validate(log, SARIF)
    (run,) = log["runs"]
    bad = run["results"][2]
    assert bad["ruleId"] == "TS100" and run["tool"]["driver"]["rules"][bad["ruleIndex"]]["name"] == "bad-suppression"
    assert "suppressions" not in bad


def test_fingerprints_survive_an_unrelated_edit_above(tmp_path):
    before = scan_sarif(report(tmp_path), tmp_path, "1")["runs"][0]["results"][0]["partialFingerprints"]
    shifted = "import os\n\n" + SOURCE
    moved = ScanReport.build([scan_source(shifted, str(tmp_path / "host.py"), ScanConfig())])
    after = scan_sarif(moved, tmp_path, "1")["runs"][0]["results"][0]
    assert (
        after["partialFingerprints"] == before and after["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    )


def test_fingerprints_do_not_depend_on_the_flow(tmp_path):
    scanned = report(tmp_path)
    rerouted = dataclasses.replace(
        scanned,
        findings=tuple(dataclasses.replace(f, flow=(Step(1, 1, "elsewhere"), f.flow[-1])) for f in scanned.findings),
    )
    before, after = (scan_sarif(r, tmp_path, "1")["runs"][0]["results"] for r in (scanned, rerouted))
    assert [r["codeFlows"] for r in before] != [r["codeFlows"] for r in after]
    assert [r["partialFingerprints"] for r in before] == [r["partialFingerprints"] for r in after]


def test_text_lists_active_findings_with_their_line_and_a_summary(tmp_path):
    console = Console(
        file=io.StringIO(), width=400, color_system=None, theme=THEME
    )  # wide: a tmp path under xdist is long
    console.print(report(tmp_path))
    lines = console.file.getvalue().splitlines()
    message = next(rule.message for rule in RULES if rule.id == "TS104")
    assert lines[0] == f"{tmp_path / 'host.py'}:2:5 TS104 shared-baseline: {message}"
    assert lines[1] == "    return recapture(list(run.tools), run)"
    assert lines[2] == "    path: 2:27 tool list `run.tools` → 2:5 returned as the baseline, shared"
    assert lines[3] == f"error: {tmp_path / 'bad.py'}:3:1: cannot parse: x"
    assert lines[4] == (
        "note: no dispatch seam recognised: no call in the scanned files matches a configured dispatch name "
        "(gateway.dispatch); if the code sends requests under another name, list it in [tool.toolsurface.scan].dispatch"
    )
    assert lines[5] == "1 findings (TS104 ×1), 1 suppressed, 1 files not scanned; 1 of 2 files parsed"


def test_text_shows_the_path_line_only_when_the_flow_has_a_source():
    source = "class Agent:\n    def set_tools(self, tools):\n        self.tools = list(tools)\n\nexpected = tools[:4]\n"
    console = Console(file=io.StringIO(), width=400, color_system=None, theme=THEME)
    console.print(ScanReport.build([scan_source(source, "host.py", ScanConfig())]))
    kept, cut = (next(rule.message for rule in RULES if rule.id == id_) for id_ in ("TS110", "TS107"))
    assert console.file.getvalue().splitlines()[:5] == [
        f"host.py:3:9 TS110 keeps-caller-schema: {kept}",
        "    self.tools = list(tools)",
        "    path: 2:25 parameter `tools` → 3:9 kept on `self.tools`",
        # A cut at module level has nothing before it: no path line.
        f"host.py:5:12 TS107 silent-truncation: {cut}",
        "    expected = tools[:4]",
    ]


def test_text_shows_a_trojan_source_line_with_its_bidi_controls_escaped():
    # A comment holding a right-to-left override and an isolate: shown raw, it would reorder the line.
    source = "expected = tools[:4]  # \u202e } \u2066if admin:\u2069 \u2066 begin\x1b]0;t\x07\n"
    console = Console(file=io.StringIO(), width=400, color_system=None, theme=THEME)
    console.print(ScanReport.build([scan_source(source, "h\u202eost.py", ScanConfig())]))
    text = console.file.getvalue()
    assert (
        "    expected = tools[:4]  # \\u202e } \\u2066if admin:\\u2069 \\u2066 begin\\x1b]0;t\\x07" in text.splitlines()
    )
    assert text.startswith("h\\u202eost.py:1:12 TS107 ")
    assert not {char for char in text if not char.isprintable() and char != "\n"}


def test_a_recognised_dispatch_takes_the_note_away(tmp_path):
    source = "def send(request):\n    check(request)\n    gateway.dispatch(request)\n"
    seen = ScanReport.build([scan_source(source, str(tmp_path / "host.py"), ScanConfig())])
    assert (seen.dispatches, seen.notes) == (1, ())
    # The same call under a name the configuration does not list is not a seam, and the note says so.
    unseen = ScanReport.build(
        [scan_source(source.replace("gateway.dispatch", "self.client.dispatch"), "host.py", ScanConfig())]
    )
    assert unseen.dispatches == 0 and unseen.notes[0].startswith("no dispatch seam recognised")
    document = scan_json(unseen)
    jsonschema.validate(document, SCAN_SCHEMA)
    assert document["notes"] == list(unseen.notes)
    log = scan_sarif(unseen, tmp_path, "1")
    jsonschema.validate(log, SARIF)
    assert log["runs"][0]["invocations"][0]["toolExecutionNotifications"] == [
        {"level": "warning", "message": {"text": unseen.notes[0]}}
    ]


def test_skipped_paths_are_listed_and_carried(tmp_path):
    skipped = FileSkipped(str(tmp_path / "pipe.py"), "a FIFO, never opened")
    result = ScanReport.build([scan_source(SOURCE, str(tmp_path / "host.py"), ScanConfig()), skipped])
    assert result.files == 1 and result.exit_code == 1
    console = Console(file=io.StringIO(), width=400, color_system=None, theme=THEME)
    console.print(result)
    assert f"skipped: {tmp_path / 'pipe.py'}: a FIFO, never opened" in console.file.getvalue().splitlines()
    assert scan_json(result)["skipped"] == [{"path": str(tmp_path / "pipe.py"), "reason": "a FIFO, never opened"}]
    log = scan_sarif(result, tmp_path, "1")
    jsonschema.validate(log, SARIF)
    (note,) = [n for n in log["runs"][0]["invocations"][0]["toolExecutionNotifications"] if n["level"] == "note"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "pipe.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_locations_outside_the_root_are_absolute_uris_without_a_base(tmp_path):
    inside, outside = tmp_path / "root", tmp_path / "elsewhere"
    inside.mkdir()
    results = [
        scan_source(SOURCE, str(inside / "my host.py"), ScanConfig()),
        scan_source(SOURCE, str(outside / "host.py"), ScanConfig()),
        FileFailed(str(outside / "bad.py"), "bad"),
    ]
    log = scan_sarif(ScanReport.build(results), inside, "1")
    jsonschema.validate(log, SARIF)
    (run,) = log["runs"]
    artifacts = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    artifacts += [
        n["locations"][0]["physicalLocation"]["artifactLocation"]
        for n in run["invocations"][0]["toolExecutionNotifications"]
        if "locations" in n
    ]
    assert artifacts == [
        {"uri": "my%20host.py", "uriBaseId": "%SRCROOT%"},
        {"uri": "my%20host.py", "uriBaseId": "%SRCROOT%"},
        {"uri": (outside / "host.py").as_uri()},
        {"uri": (outside / "host.py").as_uri()},
        {"uri": (outside / "bad.py").as_uri()},
    ]


def test_the_schemas_tests_use_are_the_shared_reference_copies():
    shared = ROOT.parent / "shared" / "schemas"
    if not shared.is_dir():
        pytest.skip(f"{shared} is not beside this checkout; the copies in tests/fixtures/schemas are used as they are")
    for name in ("sarif-2.1.0.schema.json", "stryker-mutation-testing-report.schema.json"):
        assert (ROOT / "tests" / "fixtures" / "schemas" / name).read_bytes() == (shared / name).read_bytes(), name


def crossing(tmp_path):
    """A finding whose flow has a step in another file: the dispatch bound in `pkg/runtime.py`."""
    relay = tmp_path / "pkg" / "relay.py"
    source = "from pkg.runtime import send_to_provider\n\ndef relay(request):\n    return send_to_provider(request)\n"
    origin = (
        "send_to_provider",
        str(tmp_path / "pkg" / "runtime.py"),
        3,
        1,
        "`send_to_provider` is bound to the dispatch `gateway.dispatch`",
    )
    config = ScanConfig(dispatch=("gateway.dispatch", "send_to_provider"), origins=(origin,))
    return ScanReport.build([scan_source(source, str(relay), config)])


def test_a_step_in_another_file_names_it_in_every_format(tmp_path):
    scanned = crossing(tmp_path)
    document = scan_json(scanned)
    jsonschema.validate(document, SCAN_SCHEMA)
    ((finding,),) = [document["findings"]]
    assert finding["flow"] == [
        {"line": 3, "column": 11, "label": "parameter `request`"},
        {
            "line": 3,
            "column": 1,
            "label": "`send_to_provider` is bound to the dispatch `gateway.dispatch`",
            "path": str(tmp_path / "pkg" / "runtime.py"),
        },
        {"line": 4, "column": 12, "label": "unchecked dispatch `send_to_provider(...)`"},
    ]
    log = scan_sarif(scanned, tmp_path, "1")
    jsonschema.validate(log, SARIF)
    ((result,),) = [log["runs"][0]["results"]]
    ((thread,),) = [flow["threadFlows"] for flow in result["codeFlows"]]
    assert [
        (
            step["location"]["physicalLocation"]["artifactLocation"],
            step["location"]["physicalLocation"]["region"]["startLine"],
        )
        for step in thread["locations"]
    ] == [
        ({"uri": "pkg/relay.py", "uriBaseId": "%SRCROOT%"}, 3),
        ({"uri": "pkg/runtime.py", "uriBaseId": "%SRCROOT%"}, 3),
        ({"uri": "pkg/relay.py", "uriBaseId": "%SRCROOT%"}, 4),
    ]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/relay.py"
    console = Console(file=io.StringIO(), width=400, color_system=None, theme=THEME)
    console.print(scanned)
    assert console.file.getvalue().splitlines()[2] == (
        f"    path: 3:11 parameter `request` → {tmp_path / 'pkg' / 'runtime.py'}:3:1 `send_to_provider` is bound "
        "to the dispatch `gateway.dispatch` → 4:12 unchecked dispatch `send_to_provider(...)`"
    )


def test_the_json_schema_refuses_a_step_with_an_empty_path(tmp_path):
    document = scan_json(crossing(tmp_path))
    document["findings"][0]["flow"][1]["path"] = ""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, SCAN_SCHEMA)
