"""The real bug classes, each in a short excerpt written in the style of the framework it was found
in (not their code): the rule reports the line where the hazard is, and nothing else."""

import pytest

from toolsurface.scan import RULES, ScanConfig, scan_source

CONFIG = ScanConfig()

# A tool factory that wraps the caller's JSON schema in a new function schema and returns the tool.
FROM_SCHEMA = '''
class Tool:
    @classmethod
    def from_schema(cls, function, name, description, json_schema, takes_ctx=False):
        """Build a tool from a hand-written JSON schema."""
        function_schema = _function_schema.FunctionSchema(
            function=function,
            description=description,
            validator=SchemaValidator(schema=core_schema.any_schema()),
            json_schema=json_schema,
            takes_ctx=takes_ctx,
        )
        tool = cls(function, takes_ctx=takes_ctx, name=name, function_schema=function_schema)
        return tool
'''

# A dataclass agent whose `clone` copies every field as it stands, the tool list included.
CLONE = '''
import dataclasses
from dataclasses import dataclass, field


@dataclass
class AgentBase:
    name: str
    tools: list = field(default_factory=list)


@dataclass
class Agent(AgentBase):
    instructions: str | None = None

    def clone(self, **kwargs):
        """Make a copy of the agent, with the given arguments changed."""
        if "model" in kwargs and "model_settings" not in kwargs:
            kwargs["model_settings"] = None
        return dataclasses.replace(self, **kwargs)
'''

# Strict-mode normalization that writes into the schema it is handed, recursing into its parts.
ENSURE_STRICT = '''
import copy


def ensure_strict_json_schema(schema):
    """Make a schema strict."""
    if schema == {}:
        return copy.deepcopy(EMPTY)
    return _ensure_strict(schema, path=(), root=schema)


def _ensure_strict(json_schema, *, path, root):
    defs = json_schema.get("$defs")
    if is_dict(defs):
        for def_name, def_schema in defs.items():
            _ensure_strict(def_schema, path=(*path, "$defs", def_name), root=root)
    typ = json_schema.get("type")
    if typ == "object" and "additionalProperties" not in json_schema:
        json_schema["additionalProperties"] = False
    properties = json_schema.get("properties")
    if is_dict(properties):
        json_schema["properties"] = {
            key: _ensure_strict(prop, path=(*path, "properties", key), root=root) for key, prop in properties.items()
        }
    return json_schema
'''

# A model-driven tool selector that keeps the first `max_tools` names the model picked.
SELECTOR = """
class ToolSelectorMiddleware:
    def _process_selection_response(self, response, available_tools, valid_tool_names, request):
        selected_tool_names = []
        max_tools = self.max_tools
        for tool_name in response.get("tools", []):
            if tool_name not in valid_tool_names:
                continue
            if tool_name not in selected_tool_names and (
                max_tools is None or len(selected_tool_names) < max_tools
            ):
                selected_tool_names.append(tool_name)
        selected = [tool for tool in available_tools if tool.name in selected_tool_names]
        return request.override(tools=selected)
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(FROM_SCHEMA, [("TS110", 10)], id="factory-keeps-caller-schema"),
        pytest.param(CLONE, [("TS112", 20)], id="clone-shares-tool-list"),
        # The public entry hands the caller's schema to the helper that edits it; the helper edits it.
        pytest.param(ENSURE_STRICT, [("TS111", 9), ("TS111", 19)], id="strict-schema-edited-in-place"),
        pytest.param(SELECTOR, [("TS113", 10)], id="selection-capped-by-count"),
    ],
)
def test_each_real_bug_class_is_reported_at_its_line(source: str, expected: list[tuple[str, int]]) -> None:
    findings = scan_source(source, "framework.py", CONFIG).findings
    assert [(f.rule, f.line) for f in findings] == expected


def test_the_same_code_made_safe_is_quiet() -> None:
    safe = (
        FROM_SCHEMA.replace("json_schema=json_schema", "json_schema=copy.deepcopy(json_schema)")
        + CLONE.replace(
            "return dataclasses.replace",
            "kwargs.setdefault('tools', list(self.tools))\n        return dataclasses.replace",
        )
        + ENSURE_STRICT.replace(
            "return _ensure_strict(schema,", "schema = copy.deepcopy(schema)\n    return _ensure_strict(schema,"
        )
    )
    ours = [rule for rule in RULES if rule.id in {"TS110", "TS112"}]
    assert scan_source(safe, "framework.py", CONFIG, ours).findings == ()
    # The helper still edits what it is handed, but the public entry hands it a deep copy.
    strict = [rule for rule in RULES if rule.id == "TS111"]
    assert [f.line for f in scan_source(safe, "framework.py", CONFIG, strict).findings] == [
        _line(safe, 'json_schema["additionalProperties"] = False')
    ]


def _line(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)
