"""Scan results as a value, rendered three ways: a rich listing, stable JSON, and SARIF 2.1.0.

SARIF carries what GitHub code scanning reads: rule metadata, 1-based regions with snippets,
partial fingerprints that survive unrelated edits, in-source suppressions, and a notification for
every file that could not be parsed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from toolsurface.harness._scan import RULES, FileFailed, FileResult, Finding, Rule

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

    @classmethod
    def build(cls, results: Iterable[FileResult]) -> ScanReport:
        files = parsed = 0
        findings: list[Finding] = []
        failures: list[FileFailed] = []
        for result in results:
            files += 1
            if isinstance(result, FileFailed):
                failures.append(result)
            else:
                parsed += result.parsed
                findings.extend(result.findings)
        return cls(files, parsed, tuple(findings), tuple(failures))

    @property
    def active(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if not finding.suppressed)

    @property
    def exit_code(self) -> int:
        """2 when a file could not be scanned, 1 with findings, 0 without."""
        return 2 if self.failures else 1 if self.active else 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Paths, messages and source lines come from the scanned tree: plain Text, never markup.
        for finding in self.active:
            yield Text.assemble(
                (f"{finding.path}:{finding.line}:{finding.column}", "toolsurface.command"),
                " ",
                (f"{finding.rule} {finding.name}", "toolsurface.survived"),
                f": {finding.message}",
            )
            yield Text(f"    {finding.source.strip()}")
        for failure in self.failures:
            yield Text(f"error: {failure.problem}", style="toolsurface.error")
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
            }
            for f in report.findings
        ],
        "failures": [{"path": failure.path, "problem": failure.problem} for failure in report.failures],
    }


def scan_sarif(report: ScanReport, root: Path, version: str, rules: Sequence[Rule] = RULES) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log, paths relative to `root` (the checkout GitHub scans)."""
    index = {rule.id: position for position, rule in enumerate(rules)}
    seen: Counter[str] = Counter()
    results = []
    for finding in report.findings:
        uri = _uri(finding.path, root)
        digest = hashlib.sha256(f"{finding.rule}\0{uri}\0{finding.source.strip()}".encode()).hexdigest()[:16]
        seen[digest] += 1
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": index[finding.rule],
            "level": "error",
            "message": {"text": finding.message},
            "locations": [_location(uri, finding)],
            "partialFingerprints": {"primaryLocationLineHash": f"{digest}:{seen[digest]}"},
        }
        if finding.suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": "# toolsurface: ignore"}]
        results.append(result)
    notifications = [
        {"level": "error", "message": {"text": failure.problem}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(failure.path, root), "uriBaseId": "%SRCROOT%"}}}]}
        for failure in report.failures
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
                "invocations": [{"executionSuccessful": not report.failures, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }


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


def _location(uri: str, finding: Finding) -> dict[str, Any]:
    region = {
        "startLine": finding.line,
        "startColumn": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column,
        "snippet": {"text": finding.source},
    }
    return {"physicalLocation": {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}, "region": region}}


def _uri(path: str, root: Path) -> str:
    absolute = Path(path).resolve()
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        return absolute.as_uri()
