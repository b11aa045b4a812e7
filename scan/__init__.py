"""Static analysis of guard code with libcst: the rules, the engine, and the API that walks files.

Scanned code is read as text and parsed, never imported or run.
"""

from ._api import default_cache_dir, python_files, scan_paths
from ._config import load_config
from ._engine import scan_source
from ._registry import registered_rules
from ._rule import Invalid, Match, Mentions, Needs, Rule, Tree
from ._types import (
    FileFailed,
    FileResult,
    FileScanned,
    FileSkipped,
    Finding,
    ScanConfig,
    Step,
)
from .rules import RULES

__all__ = [
    "RULES",
    "FileFailed",
    "FileResult",
    "FileScanned",
    "FileSkipped",
    "Finding",
    "Invalid",
    "Match",
    "Mentions",
    "Needs",
    "Rule",
    "ScanConfig",
    "Step",
    "Tree",
    "default_cache_dir",
    "load_config",
    "python_files",
    "registered_rules",
    "scan_paths",
    "scan_source",
]
