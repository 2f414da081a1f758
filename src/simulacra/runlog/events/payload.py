"""The base of every event kind's data: to and from the `data` of an event line."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

P = TypeVar("P", bound="Payload")


@dataclass(frozen=True, kw_only=True)
class Payload:
    """The data of one kind of event. `extra`, where a kind has it, holds what a world adds."""

    KIND: ClassVar[str]
    AGENT: ClassVar[str] = "null"  # what the envelope's `agent` is, for the reference

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, required in _fields(type(self)):
            value = getattr(self, name)
            if name == "extra":
                data.update(value)
            elif value is not None or required:
                data[name] = value
        return data

    @classmethod
    def from_data(cls: type[P], data: dict[str, Any]) -> P:
        names = {name for name, _ in _fields(cls)}
        known = {k: v for k, v in data.items() if k in names and k != "extra"}
        if "extra" in names:
            known["extra"] = {k: v for k, v in data.items() if k not in names}
        return cls(**known)


_FIELDS: dict[type[Payload], tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type[Payload]) -> tuple[tuple[str, bool], ...]:
    """Each field's name and whether it has no default (written even when None), read once
    per kind: `dataclasses.fields` costs more than the rest of an event."""
    found = _FIELDS.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        found = _FIELDS[cls] = tuple((f.name, f.default is dataclasses.MISSING) for f in fields)
    return found
