"""Renderers of toolsurface results: results.json, the terminal summary, scan reports (text, JSON, SARIF) and source-mutant reports."""

from ._defects import DefectMatrix
from ._mutants import MutantsView, stryker_report
from ._reproduce import ReproductionView
from ._results import RESULTS_FILE, SCHEMA_VERSION, ResultsWriter, case_record, write_results
from ._scan import ScanReport, scan_json, scan_sarif, write_report
from ._terminal import MAX_LISTED, THEME, Failure, RunSummary

__all__ = [
    "MAX_LISTED",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "THEME",
    "DefectMatrix",
    "Failure",
    "MutantsView",
    "ReproductionView",
    "ResultsWriter",
    "RunSummary",
    "ScanReport",
    "case_record",
    "scan_json",
    "scan_sarif",
    "stryker_report",
    "write_report",
    "write_results",
]
