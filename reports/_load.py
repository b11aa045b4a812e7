"""Read a results.json back, checked against its schema, for `report` and `merge`."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from jsonschema.exceptions import best_match

from toolsurface.harness._errors import UsageError

from ._results import SCHEMA_VERSION


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = orjson.loads(resources.files(__package__).joinpath("results.schema.json").read_bytes())
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def read_results(path: Path) -> dict[str, Any]:
    """The document in `path`; a `UsageError` naming the file and JSON path when it is not a results.json."""
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except orjson.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != SCHEMA_VERSION:
        raise UsageError(f"{path}:$.schema_version: expected results.json schema version {SCHEMA_VERSION}, found {version!r}")
    error = best_match(_validator().iter_errors(document))
    if error is not None:
        raise UsageError(f"{path}:{error.json_path}: {error.message}")
    return document
