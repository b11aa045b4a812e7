"""The built-in scan rules, one class per file: `BUILT_IN`, the rule pack registered under the
`toolsurface.rules` entry point group (see `scan._registry`), and `RULES`, one of each, in id order."""

from .._rule import Rule
from .bad_suppression import BadSuppression
from .clone_shares_tools import CloneSharesTools
from .conditional_check import ConditionalCheck
from .count_capped_selection import CountCappedSelection
from .diagnostic_authority import DiagnosticAuthority
from .edits_caller_schema import EditsCallerSchema
from .hook_admits_control import HookAdmitsControl
from .hook_edits_schema_in_place import HookEditsSchemaInPlace
from .keeps_caller_schema import KeepsCallerSchema
from .self_derived_baseline import SelfDerivedBaseline
from .shared_baseline import SharedBaseline
from .silent_truncation import SilentTruncation
from .unguarded_dispatch import UnguardedDispatch
from .unsettled_rejection import UnsettledRejection

#: Our rule pack: the rule classes, in id order.
BUILT_IN: tuple[type[Rule], ...] = (
    BadSuppression,
    UnguardedDispatch,
    ConditionalCheck,
    SelfDerivedBaseline,
    SharedBaseline,
    UnsettledRejection,
    DiagnosticAuthority,
    SilentTruncation,
    HookAdmitsControl,
    HookEditsSchemaInPlace,
    KeepsCallerSchema,
    EditsCallerSchema,
    CloneSharesTools,
    CountCappedSelection,
)

#: One of each built-in rule; a scan runs these and every installed pack's (`registered_rules`).
RULES = tuple(rule() for rule in BUILT_IN)

__all__ = [
    "BUILT_IN",
    "RULES",
    "BadSuppression",
    "CloneSharesTools",
    "ConditionalCheck",
    "CountCappedSelection",
    "DiagnosticAuthority",
    "EditsCallerSchema",
    "HookAdmitsControl",
    "HookEditsSchemaInPlace",
    "KeepsCallerSchema",
    "SelfDerivedBaseline",
    "SharedBaseline",
    "SilentTruncation",
    "UnguardedDispatch",
    "UnsettledRejection",
]
