"""Every node's line and column, for a module with something to report.

libcst's `MetadataWrapper` first walks the whole module for the batchable providers, of which
positions are not one, and its position state splits every token on newlines. Generating the code
once with a state that splits only tokens holding a newline gives the same ranges in about 40%
of the time. Both lean on libcst internals (`_codegen`, the provider's `_computed`), so a libcst
that changes them falls back to the public wrapper.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


class _Positions(PositionProvidingCodegenState):
    def _update_position(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        segments = NEWLINE_RE.split(value)
        self.line += len(segments) - 1
        self.column = len(segments[-1])


def positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Each node's range, as libcst's `PositionProvider` gives it."""
    try:
        provider = PositionProvider()
        module._codegen(_Positions(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider))
        return provider._computed
    except (AttributeError, TypeError):  # libcst's internals moved: take the public way
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
