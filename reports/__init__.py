"""Renderers of toolsurface results: results.json and the terminal summary."""

from ._results import RESULTS_FILE, SCHEMA_VERSION, ResultsWriter, case_record, write_results
from ._terminal import MAX_LISTED, THEME, Failure, RunSummary

__all__ = [
    "MAX_LISTED",
    "RESULTS_FILE",
    "SCHEMA_VERSION",
    "THEME",
    "Failure",
    "ResultsWriter",
    "RunSummary",
    "case_record",
    "write_results",
]
