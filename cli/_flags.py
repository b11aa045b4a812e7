"""The run options as typer parameters, made from their declaration (`harness/_options.py`).

A command names the run options it takes, in the order its help lists them, with `@taking`; their
flags, types and help come from the declaration, so a flag is spelled and explained the same in
every command that takes it, and the same as the pytest plugin's and `[tool.toolsurface]`'s. The
command gets their values as one `Given`, which turns them into `RunOptions`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolsurface.harness._options import BY_NAME, RunOption

if TYPE_CHECKING:
    from toolsurface.harness._api import RunOptions

#: The parameter through which a command gets the values of its run options.
GIVEN = "given"


@dataclass(frozen=True)
class Given:
    """The values a command's run-option flags were given, by option name; None where a flag was not given."""

    values: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def options(self, **fixed: Any) -> RunOptions:
        """The run options: `fixed` (a command's own say), then the flags, then `[tool.toolsurface]`
        of the `--config` file (or ./pyproject.toml), then the defaults."""
        from toolsurface.harness._api import RunOptions  # the engine: loaded when a command runs, not for its help
        from toolsurface.harness._config import load_project_config

        project = load_project_config(self.values.get("config"))
        flags = {name: BY_NAME[name].parsed(value) for name, value in self.values.items() if BY_NAME[name].field}
        return RunOptions.configured(project, **{**flags, **fixed})


def parameter(option: RunOption) -> inspect.Parameter:
    """The typer parameter of a run option's flag."""
    assert option.flag is not None, f"{option.name} has no flag"
    kind = option.type if option.unset is not None else option.type | None
    return inspect.Parameter(
        option.name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=option.unset,
        annotation=Annotated[kind, typer.Option(option.flag, help=option.help)],
    )


def taking(*names: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command these parameters, in this order: each run option named, made from its
    declaration, or the command's own parameter of that name. Its own parameters not named (its
    arguments) come first; it gets the run options' values as `given`."""

    def build(command: Callable[..., None]) -> Callable[..., None]:
        own = dict(inspect.signature(command, eval_str=True).parameters)
        assert GIVEN in own, f"{command.__name__} takes its run options as `{GIVEN}`"
        clashing = set(own) & set(BY_NAME) & set(names)
        assert not clashing, f"{command.__name__}: its own parameters {clashing} are named like run options"
        declared = [name for name in names if name not in own]
        first = [param for name, param in own.items() if name not in names and name != GIVEN]
        params = [*first, *(own[name] if name in own else parameter(BY_NAME[name]) for name in names)]

        def given_to(**values: Any) -> None:
            given = Given({name: values.pop(name) for name in declared})
            command(**values, **{GIVEN: given})

        # Named and documented as the command, but not wrapping it: typer reads the parameters from
        # `__signature__` alone, and the types from it rather than from annotations of either function.
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(given_to, name, getattr(command, name))
        given_to.__annotations__ = {}
        given_to.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]  # what typer reads
        return given_to

    return build
