"""Value types of the scan: what a project names its seams, findings, and per-file results.

Results are a closed set — a file scanned, a file that could not be, or a path skipped unopened —
and every one pickles, so files can be scanned in worker processes and cached by content.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScanConfig:
    """How a project names its own seams; `[tool.toolsurface.scan]` in pyproject overrides each.

    A configured name matches a call whose dotted name ends with it, segment by segment:
    `gateway.dispatch` matches `ports.gateway.dispatch(...)`, not a bare `dispatch(...)`.
    """

    #: Calls that send the request to the provider.
    dispatch: tuple[str, ...] = ("gateway.dispatch",)
    #: Calls that compare the request's surface with the expected one.
    check: tuple[str, ...] = (
        "check",
        "early_check",
        "final_check",
        "check_summary",
        "check_parity",
        "assert_surface_parity",
    )
    #: Calls that settle a reservation in the owner's ledger.
    settle: tuple[str, ...] = ("settle", "settle_refusal", "on_provider_request_failure")
    #: Calls that register a hook callback.
    hook_registration: tuple[str, ...] = ("register_hook", "add_hook", "on_before_dispatch")
    #: Functions and classes (their methods) that run as hooks, by name: registered by means the
    #: scan does not see. Those registered in another scanned module are found and added.
    hooks: tuple[str, ...] = ()
    #: Control tools only the host/fitting entry may admit.
    controls: tuple[str, ...] = ("read_tool_result",)
    #: Names that hold the baseline or the expected surface.
    baseline: tuple[str, ...] = ("baseline", "expected", "expected_surface", "expected_tools")
    #: Words that mark a condition, function or name as being about hooks or optional callbacks.
    hook_words: tuple[str, ...] = ("hook", "hooks", "callback", "callbacks", "interceptor", "interceptors")
    #: Words that mark a name as holding the request's tool list.
    tool_words: tuple[str, ...] = ("tools", "tool_list", "surface")
    #: Calls that make an independent, immutable copy (a baseline built with one shares nothing).
    snapshot: tuple[str, ...] = ("deepcopy", "capture", "snapshot", "snapshot_of", "dumps", "freeze")
    #: Keys under which a tool object keeps its input schema.
    schema_keys: tuple[str, ...] = ("input_schema", "inputSchema", "parameters")
    #: Last words of a name that holds a JSON schema (`schema`, `json_schema`, `inputSchema`).
    schema_words: tuple[str, ...] = ("schema",)
    #: Words of the request and its seal, which the expected surface must never be derived from.
    request_words: tuple[str, ...] = ("request", "req")
    seal_words: tuple[str, ...] = ("seal", "sealed")
    #: Parts of exception names that mean "the request is refused".
    refusal_words: tuple[str, ...] = ("refused", "rejected", "refusal", "rejection", "capacityexceeded")
    #: Diagnostic fields that look like availability, and where they are read from.
    diagnostic_words: tuple[str, ...] = ("quota", "budget", "deadline", "provider_attempt", "exhausted", "rate_limit")
    message_words: tuple[str, ...] = (
        "message",
        "messages",
        "content",
        "result",
        "results",
        "transcript",
        "payload",
        "history",
    )
    #: Source mutants: the condition that holds only when hooks are registered, and a baseline
    #: read from the live request at check time, as expressions in the guard's own names. A
    #: template whose names the guard does not have is skipped.
    hook_condition: tuple[str, ...] = ("run.scenario.hooks",)
    request_baseline: tuple[str, ...] = ("lambda: capture(run.tools, run.fmt)",)
    #: Seconds one file may take to parse and analyse; past it the file is reported and the scan
    #: goes on. Not part of the cache key: it changes which files finish, never what they find.
    time_limit: float = 30.0
    #: Found by the scan, not set: functions of other modules that edit what they are handed, as
    #: `(the name this module calls it by, its parameters, the parameters it edits)`.
    editors: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    #: Found by the scan, not set: functions of other modules that read a diagnostic field of the
    #: messages they are handed, as this module calls them.
    readers: tuple[str, ...] = ()
    #: Found by the scan, not set: context managers of other modules that settle the block of a
    #: `with` over them however it is left, as this module calls them.
    settling_managers: tuple[str, ...] = ()
    #: Found by the scan, not set: properties and functions of other modules that say whether
    #: hooks are registered (`self.middleware.active`), as this module reads them.
    hook_conditions: tuple[str, ...] = ()
    #: Found by the scan, not set: functions of other modules that return what they are handed,
    #: or a shallow copy of it, as `(the name this module calls it by, its parameters, those returned)`.
    returners: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    #: Found by the scan, not set: the program's refusal classes with the classes they inherit
    #: from in it, so that a handler of one refusal is known not to catch another.
    refusal_lineage: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Found by the scan, not set: functions and methods annotated to return a list of tools
    #: (`-> list[ToolSpec]`), as this module calls them: what a call of one gives is a tool list.
    tool_getters: tuple[str, ...] = ()
    #: Found by the scan, not set: functions of other modules that call the final check (on some
    #: path), as this module calls them: a module that calls one compares surfaces.
    comparers: tuple[str, ...] = ()
    #: Found by the scan, not set: functions of other modules that call a settlement (on some path),
    #: as this module calls them: a module that calls one holds reservations.
    settle_steps: tuple[str, ...] = ()
    #: Found by the scan, not set: classes of this module with tool-list fields declared on a base
    #: in another module, as `(class, fields)`.
    tool_fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Found by the scan, not set: classes of this module built by an `__init__` of another module.
    foreign_inits: tuple[str, ...] = ()
    #: Found by the scan, not set: where each name found above is decided in another file, as
    #: `(the name this module calls it by, that file's path, line, column, what is found there)`,
    #: so a finding's flow can show the step in the other file (see `Step.path`).
    origins: tuple[tuple[str, str, int, int, str], ...] = ()
    #: Rule ids to run (none: every rule), and rule ids to leave out; `--select` and `--ignore` set them.
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Words are parts of names, compared in lower case: `refusal_words = ["CatalogDrift"]`
        # written in the exception's own case must still match `raise CatalogDrift(...)`.
        for name in WORD_SETTINGS:
            object.__setattr__(self, name, tuple(word.lower() for word in getattr(self, name)))


#: The settings that are words, matched in any case; the others are names, matched as written.
WORD_SETTINGS = (
    "hook_words",
    "tool_words",
    "schema_words",
    "request_words",
    "seal_words",
    "refusal_words",
    "diagnostic_words",
    "message_words",
)


@dataclass(frozen=True, slots=True)
class Step:
    """One place on a finding's flow: where the hazardous value came from, or where it ends up."""

    #: 1-based, as editors and SARIF count them.
    line: int
    column: int
    #: What happens there, in a few words: "parameter `schema`", "kept on `self._tools`".
    label: str
    #: The file the step is in, when it is not the finding's own: the helper in another module that
    #: decides it (`src/pkg/guards.py`); "" for the finding's own file.
    path: str = ""


@dataclass(frozen=True, slots=True)
class Finding:
    """One place a rule matched, 1-based lines and columns as editors and SARIF count them."""

    rule: str
    name: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    #: The source line, for the listing and for SARIF's snippet.
    source: str
    #: How the hazardous value got here, source first; the last step is the finding's own place,
    #: so there is always one. (`path` names the file: a finding's steps are its flow.)
    flow: tuple[Step, ...]
    #: Silenced by a trailing `# toolsurface: ignore[RULE]` comment on its line.
    suppressed: bool = False


@dataclass(frozen=True, slots=True)
class FileScanned:
    path: str
    findings: tuple[Finding, ...]
    #: False when the cheap text filter found none of the configured names: not parsed at all.
    parsed: bool
    #: Calls to a configured `dispatch` name. An unparsed file has none: the dispatch rule needs
    #: those names, so a file that mentions one is always parsed.
    dispatches: int = 0


@dataclass(frozen=True, slots=True)
class FileFailed:
    """A file that could not be read or parsed; the scan goes on without it."""

    path: str
    #: `path:line:col: message`, one line.
    problem: str


@dataclass(frozen=True, slots=True)
class FileSkipped:
    """A path that is not a file to read (a FIFO, a socket, a device, a folder link already walked):
    named once, never opened, and not an error."""

    path: str
    #: Why, in a few words: `a FIFO, never opened`.
    reason: str


FileResult = FileScanned | FileFailed | FileSkipped
