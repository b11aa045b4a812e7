"""A small stand-in for the parts of pydantic's ``BaseModel`` the runtime relies on.

Fields are declared with class annotations; defaults are class attributes or ``Field``
objects carrying a ``default_factory``.  ``model_copy`` and ``model_dump`` follow pydantic's
semantics closely enough for the runtime: ``model_copy()`` is shallow unless ``deep=True``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

M = TypeVar("M", bound="BaseModel")

_MISSING = object()


@dataclass(frozen=True)
class FieldInfo:
    """Default and documentation of one model field."""

    default: Any = None
    default_factory: Callable[[], Any] | None = None
    description: str = ""


def Field(
    default: Any = None,
    *,
    default_factory: Callable[[], Any] | None = None,
    description: str = "",
) -> Any:
    """Declare a model field with a default or a default factory."""
    return FieldInfo(default=default, default_factory=default_factory, description=description)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {key: _dump(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_dump(item) for item in value]
    return value


class BaseModel:
    """Annotated-field model with keyword construction, copy and dump."""

    model_config: ClassVar[dict[str, Any]] = {}

    def __init__(self, **data: Any) -> None:
        for name in self.model_fields():
            value = data.pop(name) if name in data else self._default_for(name)
            object.__setattr__(self, name, value)
        if data:
            unknown = ", ".join(sorted(data))
            raise TypeError(f"{type(self).__name__} got unexpected fields: {unknown}")

    @classmethod
    def model_fields(cls) -> list[str]:
        """Field names in declaration order, base classes first."""
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in vars(klass).get("__annotations__", {}):
                if name.startswith("_") or name == "model_config" or name in names:
                    continue
                names.append(name)
        return names

    @classmethod
    def _default_for(cls, name: str) -> Any:
        default = getattr(cls, name, _MISSING)
        if default is _MISSING:
            raise TypeError(f"{cls.__name__} requires field {name!r}")
        if isinstance(default, FieldInfo):
            if default.default_factory is not None:
                return default.default_factory()
            return default.default
        return default

    def model_copy(self: M, *, update: dict[str, Any] | None = None, deep: bool = False) -> M:
        """Copy the model, applying ``update`` to the copy. Shallow unless ``deep``."""
        clone = copy.deepcopy(self) if deep else copy.copy(self)
        for name, value in (update or {}).items():
            object.__setattr__(clone, name, value)
        return clone

    def model_dump(self) -> dict[str, Any]:
        """The fields as plain Python data (new containers throughout)."""
        return {name: _dump(getattr(self, name)) for name in self.model_fields()}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()  # type: ignore[union-attr]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.model_fields())
        return f"{type(self).__name__}({shown})"
