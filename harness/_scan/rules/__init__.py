"""The scan rules, one class per file; `RULES` holds one of each in id order."""

from .conditional_check import ConditionalCheck
from .hook_admits_control import HookAdmitsControl
from .hook_edits_schema_in_place import HookEditsSchemaInPlace
from .shared_baseline import SharedBaseline
from .silent_truncation import SilentTruncation

RULES = tuple(rule() for rule in (ConditionalCheck, SharedBaseline, SilentTruncation, HookAdmitsControl, HookEditsSchemaInPlace))

__all__ = ["RULES", "ConditionalCheck", "HookAdmitsControl", "HookEditsSchemaInPlace", "SharedBaseline", "SilentTruncation"]
