"""The scan rules, one class per file; `RULES` holds one of each in id order."""

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

RULES = tuple(
    rule()
    for rule in (
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
)

__all__ = [
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
