"""The scenario reference, generated from the `Scenario` model: every section, each field's
type, default and meaning. The documentation site builds its scenario page from it."""

from __future__ import annotations

import json
import types
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from simulacra.experiments.scenario import WORLD_CONFIGS, Scenario

_NAMES = {
    str: "text",
    int: "integer",
    float: "number",
    bool: "true or false",
    datetime: "date and time",
    date: "date",
    time: "time of day",
    timedelta: "duration (10m, 14h, 1d, or minutes)",
    Path: "path",
    type(None): "null",
}


def scenario_reference() -> str:
    """docs: the scenario format, one table per section, world kinds one after another."""
    lines = [
        "# The scenario format",
        "",
        "Generated from `simulacra.experiments.Scenario` (`simulacra scenario schema` prints",
        "the same format as JSON Schema). A scenario is one YAML file, a mapping given to",
        "`simulacra.run`, or a `Scenario`; `--set key.path=value` (or `set={...}`) overrides any",
        "field. Times may be written `17:00` (on the clock's first day) or as a date and time.",
        "",
    ]
    done: set[type[BaseModel]] = set()
    pending: list[tuple[str, str, type[BaseModel]]] = [("scenario", "", Scenario)]
    kinds = {model: kind for kind, model in WORLD_CONFIGS.items()}
    while pending:
        path, kind, model = pending.pop(0)
        if model in done:
            continue
        done.add(model)
        lines += _section(path, kind, model)
        for name, field in model.model_fields.items():
            where = name if model is Scenario else f"{path}.{name}"
            pending += [
                (where, kinds.get(m, kind), m)
                for m in _models_in(field.annotation)
                if m not in done
            ]
    return "\n".join(lines)


def _section(path: str, kind: str, model: type[BaseModel]) -> list[str]:
    title = f"## `{path}`" + (f" ({kind} world)" if kind else "")
    lines = [title, ""]
    doc = " ".join((model.__doc__ or "").split())
    if doc:
        lines += [doc, ""]
    lines += ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        meaning = field.description or ""
        cells = [f"`{name}`", _type(field.annotation), _default(field), meaning]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return [*lines, ""]


def _default(field: Any) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return ""
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "see its section"
    if isinstance(value, timedelta):
        return f"{value.total_seconds() / 60:g} minutes"
    return f"`{json.dumps(value, default=str)}`"


def _type(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _type(args[0])
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in args)
    if origin in (Union, types.UnionType):
        if all(isinstance(a, type) and a in WORLD_CONFIGS.values() for a in args):
            return "mapping: one of the world sections, by its `kind`"
        return " or ".join(_type(a) for a in args)
    if origin is list:
        return f"list of {_type(args[0])}" if args else "list"
    if origin is tuple:
        return "list of " + ", ".join(_type(a) for a in args if a is not Ellipsis)
    if origin is dict:
        return f"mapping of {_type(args[0])} to {_type(args[1])}" if args else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping (its own section)"
    if annotation is Any:
        return "any"
    return _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]
