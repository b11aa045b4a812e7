"""Renderers of toolsurface's typed records: the audit of a run (terminal, Markdown, HTML, JUnit
XML, JSON), scan reports (text, JSON, SARIF) and source-mutant reports. They read records and
write nothing of their own: results.json, the gate and merge belong to the engine.

The scan and source-mutant reports (`_scan`, `_mutants`) read libcst's results, so they are
imported only by what needs libcst: running cases and reporting on them never load it.
"""

from ._audit import DOES_NOT_PROVE, PROVES, Audit, DefectRow
from ._audit_json import audit_document, render_json
from ._defects import DefectMatrix
from ._exploration import ExplorationView
from ._html import render_html
from ._junit import render_junit
from ._markdown import render_markdown
from ._outputs import ReportFormat, parse_formats, write_reports
from ._reproduce import ReproductionView
from ._terminal import THEME, RunSummary
from ._verify import VerificationView

__all__ = [
    "DOES_NOT_PROVE",
    "PROVES",
    "THEME",
    "Audit",
    "DefectMatrix",
    "DefectRow",
    "ExplorationView",
    "ReportFormat",
    "ReproductionView",
    "RunSummary",
    "VerificationView",
    "audit_document",
    "parse_formats",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "write_reports",
]
