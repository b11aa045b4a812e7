"""Scan results as a value, rendered three ways: a rich listing, stable JSON, and SARIF 2.1.0.

SARIF carries what GitHub code scanning reads: rule metadata, 1-based regions with snippets, the
finding's flow from source to sink as a code flow, partial fingerprints that survive unrelated
edits (the flow is not part of them), in-source suppressions, and a notification for
every file that could not be parsed, every path skipped, and a scan that recognised no dispatch.

A scan that found no call to a configured dispatch name says so: "no findings" then means "no
seam to check", not "every seam checked", and the usual cause is a dispatch the project names
differently from the configuration.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.common._printable import printable
from toolsurface.scan import (
    FileFailed,
    FileResult,
    FileScanned,
    FileSkipped,
    Finding,
    Rule,
    ScanConfig,
    Step,
    registered_rules,
)

JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class ScanReport:
    """What one scan found, over every file it was given."""

    files: int
    #: Files that mentioned a configured name and so were parsed.
    parsed: int
    #: Every finding in path and line order, suppressed ones included.
    findings: tuple[Finding, ...]
    failures: tuple[FileFailed, ...]
    #: Paths named and never opened: FIFOs, sockets, devices, folders reached twice.
    skipped: tuple[FileSkipped, ...] = ()
    #: Calls to a configured dispatch name, over every file scanned.
    dispatches: int = 0
    #: The configured dispatch names, for the note that none was found.
    dispatch_names: tuple[str, ...] = ()

    @classmethod
    def build(cls, results: Iterable[FileResult], dispatch_names: Sequence[str] = ScanConfig().dispatch) -> ScanReport:
        files = parsed = dispatches = 0
        findings: list[Finding] = []
        failures: list[FileFailed] = []
        skipped: list[FileSkipped] = []
        for result in results:
            if isinstance(result, FileSkipped):
                skipped.append(result)
                continue
            files += 1
            if isinstance(result, FileFailed):
                failures.append(result)
            elif isinstance(result, FileScanned):
                parsed += result.parsed
                dispatches += result.dispatches
                findings.extend(result.findings)
        return cls(files, parsed, tuple(findings), tuple(failures), tuple(skipped), dispatches, tuple(dispatch_names))

    @property
    def notes(self) -> tuple[str, ...]:
        """What the reader should know that is neither a finding nor an error."""
        if self.dispatches or not self.dispatch_names or self.files == len(self.failures):
            return ()
        return (
            "no dispatch seam recognised: no call in the scanned files matches a configured dispatch "
            f"name ({', '.join(self.dispatch_names)}); "
            "if the code sends requests under another name, list it in [tool.toolsurface.scan].dispatch",
        )

    @property
    def active(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if not finding.suppressed)

    @property
    def exit_code(self) -> int:
        """2 when a file could not be scanned, 1 with findings, 0 without."""
        return 2 if self.failures else 1 if self.active else 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Paths, messages and source lines come from the scanned tree: plain Text, never markup, and
        # through `printable`, so a Trojan Source line (a bidi override in a string) shows its controls.
        for finding in self.active:
            yield Text.assemble(
                (printable(f"{finding.path}:{finding.line}:{finding.column}"), "toolsurface.command"),
                " ",
                (f"{finding.rule} {finding.name}", "toolsurface.survived"),
                printable(f": {finding.message}"),
            )
            yield Text(printable(f"    {finding.source.strip()}"))
            if len(finding.flow) > 1:
                yield Text(printable(f"    path: {' → '.join(map(_shown, finding.flow))}"))
        for failure in self.failures:
            yield Text(printable(f"error: {failure.problem}"), style="toolsurface.error")
        for skip in self.skipped:
            yield Text(printable(f"skipped: {skip.path}: {skip.reason}"))
        for note in self.notes:
            yield Text(printable(f"note: {note}"))
        suppressed = len(self.findings) - len(self.active)
        counts = ", ".join(f"{rule} ×{n}" for rule, n in sorted(Counter(f.rule for f in self.active).items()))
        summary = (
            f"{len(self.active)} findings{f' ({counts})' if counts else ''}, {suppressed} suppressed, "
            f"{len(self.failures)} files not scanned; {self.parsed} of {self.files} files parsed"
        )
        yield Text(summary, style="toolsurface.fail" if self.exit_code else "toolsurface.ok")


def scan_json(report: ScanReport) -> dict[str, Any]:
    """The report as stable JSON (`reports/scan.schema.json`)."""
    return {
        "version": JSON_VERSION,
        "files": report.files,
        "parsed": report.parsed,
        "findings": [
            {
                "rule": f.rule,
                "name": f.name,
                "path": f.path,
                "line": f.line,
                "column": f.column,
                "end_line": f.end_line,
                "end_column": f.end_column,
                "message": f.message,
                "source": f.source,
                "suppressed": f.suppressed,
                "flow": [
                    {
                        "line": step.line,
                        "column": step.column,
                        "label": step.label,
                        **({"path": step.path} if step.path else {}),
                    }
                    for step in f.flow
                ],
            }
            for f in report.findings
        ],
        "failures": [{"path": failure.path, "problem": failure.problem} for failure in report.failures],
        "skipped": [{"path": skip.path, "reason": skip.reason} for skip in report.skipped],
        "dispatches": report.dispatches,
        "notes": list(report.notes),
    }


def scan_sarif(report: ScanReport, root: Path, version: str, rules: Sequence[Rule] | None = None) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log, paths relative to `root` (the checkout GitHub scans), its rules
    those given or else every installed pack's."""
    rules = registered_rules() if rules is None else rules
    index = {rule.id: position for position, rule in enumerate(rules)}
    seen: Counter[str] = Counter()
    results = []
    for finding in report.findings:
        artifact = _artifact(finding.path, root)
        uri = artifact["uri"]
        digest = hashlib.sha256(f"{finding.rule}\0{uri}\0{finding.source.strip()}".encode()).hexdigest()[:16]
        seen[digest] += 1
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": "error",
            "message": {"text": finding.message},
            "locations": [_location(artifact, finding)],
            "partialFingerprints": {"primaryLocationLineHash": f"{digest}:{seen[digest]}"},
        }
        if finding.flow:
            locations = [_step(_artifact(step.path, root) if step.path else artifact, step) for step in finding.flow]
            result["codeFlows"] = [{"threadFlows": [{"locations": locations}]}]
        if finding.suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": "# toolsurface: ignore"}]
        results.append(result)
    notifications = [
        *(
            {"level": "error", "message": {"text": failure.problem}, "locations": [_place(failure.path, root)]}
            for failure in report.failures
        ),
        *(
            {"level": "note", "message": {"text": f"skipped: {skip.reason}"}, "locations": [_place(skip.path, root)]}
            for skip in report.skipped
        ),
        *({"level": "warning", "message": {"text": note}} for note in report.notes),
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolsurface",
                        "version": version,
                        "informationUri": "https://pypi.org/project/toolsurface/",
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
                "invocations": [
                    {"executionSuccessful": not report.failures, "toolExecutionNotifications": notifications}
                ],
                "results": results,
            }
        ],
    }


def _shown(step: Step) -> str:
    """A step as the listing writes it: `line:col label`, with its file when it is another one."""
    return f"{f'{step.path}:' if step.path else ''}{step.line}:{step.column} {step.label}"


def _rule(rule: Rule) -> dict[str, Any]:
    summary = (type(rule).__doc__ or rule.message).strip().split("\n\n")[0].replace("\n", " ")
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.name.replace("-", " ")},
        "fullDescription": {"text": summary},
        "help": {"text": f"{rule.message}."},
        "defaultConfiguration": {"level": "error"},
    }


def _location(artifact: dict[str, str], finding: Finding) -> dict[str, Any]:
    region = {
        "startLine": finding.line,
        "startColumn": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column,
        "snippet": {"text": finding.source},
    }
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _step(artifact: dict[str, str], step: Step) -> dict[str, Any]:
    """One step of a finding's flow as a thread flow location: where, and what happens there."""
    region = {"startLine": step.line, "startColumn": step.column}
    return {
        "location": {
            "physicalLocation": {"artifactLocation": artifact, "region": region},
            "message": {"text": step.label},
        }
    }


def _place(path: str, root: Path) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": _artifact(path, root)}}


def _artifact(path: str, root: Path) -> dict[str, str]:
    """Relative to `%SRCROOT%` inside the root; outside it, an absolute `file:` URI standing alone.

    A file reached through a folder link is inside the root by the path it was found at, even
    when the link leads outside; its resolved path is the fallback.
    """
    for file, base in ((_normal(Path(path)), _normal(root)), (Path(path).resolve(), root.resolve())):
        if file.is_relative_to(base):
            return {"uri": quote(file.relative_to(base).as_posix()), "uriBaseId": "%SRCROOT%"}
    return {"uri": Path(path).resolve().as_uri()}


def _normal(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))
