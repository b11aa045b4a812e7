"""Renderers of toolsurface results: results.json and the terminal summary."""

from ._defects import DefectMatrix
from ._reproduce import ReproductionView
from ._results import RESULTS_FILE, SCHEMA_VERSION, ResultsWriter, case_record, write_results
from ._terminal import MAX_LISTED, THEME, Failure, RunSummary

__all__ = [
    "MAX_LISTED",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "THEME",
    "DefectMatrix",
    "Failure",
    "ReproductionView",
    "ResultsWriter",
    "RunSummary",
    "case_record",
    "write_results",
]
