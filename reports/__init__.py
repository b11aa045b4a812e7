"""Renderers of toolsurface results: results.json and the audit built from it (terminal, Markdown,
HTML, JUnit XML, JSON), merged shards, scan reports (text, JSON, SARIF) and source-mutant reports.

The scan and source-mutant reports (`_scan`, `_mutants`) read libcst's results, so they are
imported only by what needs libcst: running cases and reporting on them never load it.
"""

from ._audit import DOES_NOT_PROVE, PROVES, Audit, CaseRow, DefectRow, ExpectationRow
from ._audit_json import audit_document, render_json
from ._defects import DefectMatrix
from ._files import write_report
from ._html import render_html
from ._junit import render_junit
from ._load import read_results
from ._markdown import render_markdown
from ._merge import merge_results
from ._outputs import ReportFormat, parse_formats, write_reports
from ._reproduce import ReproductionView
from ._results import RESULTS_FILE, SCHEMA_VERSION, ResultsWriter, case_record, write_results
from ._terminal import MAX_LISTED, THEME, RunSummary

__all__ = [
    "DOES_NOT_PROVE",
    "MAX_LISTED",
    "PROVES",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "THEME",
    "Audit",
    "CaseRow",
    "DefectMatrix",
    "DefectRow",
    "ExpectationRow",
    "ReportFormat",
    "ReproductionView",
    "ResultsWriter",
    "RunSummary",
    "audit_document",
    "case_record",
    "merge_results",
    "parse_formats",
    "read_results",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "write_report",
    "write_reports",
    "write_results",
]
