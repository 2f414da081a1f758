"""Validation errors in the user's words: what a field expected and what it got, once.

Pydantic says "Input should be a valid number, unable to parse string as a number" and, for a
field that takes one of several kinds of value, one line per kind with its internal tag in
the path (`memory.importance.literal['model','rule']`, `...constrained-float`). A scenario's
author wants one line a field: `scenario.memory.importance: expected "model" or "rule", or a
number, got 'bogus'`.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Iterable, Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

# What a value of each kind is, as a scenario's author would say it.
_KINDS = {
    "float_parsing": "a number",
    "float_type": "a number",
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "text",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a mapping (key: value)",
    "model_type": "a mapping of fields",
    "model_attributes_type": "a mapping of fields",
    "datetime_parsing": "a date and time like 2024-02-14T07:00",
    "datetime_from_date_parsing": "a date and time like 2024-02-14T07:00",
    "datetime_type": "a date and time like 2024-02-14T07:00",
    "date_parsing": "a date like 2024-02-14",
    "date_from_datetime_parsing": "a date like 2024-02-14",
    "time_parsing": "a time like 17:00",
    "none_required": "nothing (null)",
}
_BOUNDS = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}
_SIZES = {
    "string_too_short": ("min_length", "at least", "character"),
    "string_too_long": ("max_length", "at most", "character"),
    "too_short": ("min_length", "at least", "item"),
    "too_long": ("max_length", "at most", "item"),
}
_TYPE_NAMES = {"str", "int", "float", "bool", "none", "datetime", "date", "time", "list", "dict"}


def explained(
    errors: Iterable[Mapping[str, Any]],
    root: type[BaseModel],
    tags: Mapping[str, type[BaseModel]] | None = None,
    prefix: str = "scenario",
) -> list[str]:
    """One line per field at fault, `<prefix><path>: expected <what>, got <value>`; the
    errors a union raises for each kind it accepts become one line. `root` is the model
    validated and `tags` the models a discriminated union picks by tag (a world's kind), for
    naming the fields allowed where an unknown one was given."""
    tags = tags or {}
    lines: dict[str, list[Mapping[str, Any]]] = {}
    for error in errors:
        where = place(error, tags)
        path = prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)
        if error["type"] == "extra_forbidden":
            allowed = fields_at(root, tuple(error["loc"])[:-1], tags)
            lines[path] = [{**error, "msg": f"unknown field; allowed fields: {', '.join(allowed)}"}]
        else:
            lines.setdefault(path, []).append(error)
    return [_line(path, group) for path, group in lines.items()]


def place(error: Mapping[str, Any], tags: Mapping[str, Any]) -> tuple[Any, ...]:
    """An error's field path without the tags pydantic adds: a discriminated union's tag
    (world.town.map is world.map) and each kind a plain union tried
    (importance.constrained-float is importance)."""
    loc = tuple(error["loc"])
    return tuple(p for i, p in enumerate(loc) if not (_is_tag(p) or (i == 1 and p in tags)))


def expectation(error: Mapping[str, Any]) -> str:
    """What the value should have been, as "expected ..." says it (without the value)."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in ("literal_error", "enum"):
        return _choices(str(ctx.get("expected", "")))
    if kind in _KINDS:
        return _KINDS[kind]
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        return f"{words} {_number(ctx.get(key))}"
    if kind in _SIZES:
        key, words, unit = _SIZES[kind]
        size = ctx.get(key)
        return f"{words} {size} {unit}{'' if size == 1 else 's'}"
    if kind == "string_pattern_mismatch":
        return _pattern(str(ctx.get("pattern", "")))
    return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")


def fields_at(
    root: type[BaseModel], loc: tuple[Any, ...], tags: Mapping[str, type[BaseModel]]
) -> list[str]:
    """The fields allowed at a path that may still carry a union's tag (world.grid.places):
    `tags` maps such a tag to its model."""
    model: type[BaseModel] | None = root
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        if part in tags and part not in model.model_fields:
            model = tags[part]
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field is not None else None
    return list(model.model_fields) if model is not None else []


def _line(path: str, group: list[Mapping[str, Any]]) -> str:
    first, value = group[0], group[0]["input"]
    if first["type"] == "extra_forbidden":
        return f"{path}: {first['msg']}"
    if first["type"] == "missing":
        return f"{path}: required field missing"
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        ctx = first.get("ctx") or {}
        key = str(ctx.get("discriminator", "kind")).strip("'")
        known = str(ctx.get("expected_tags", "")).replace("'", "")
        if first["type"] == "union_tag_not_found":
            return f"{path}.{key}: required field missing; expected one of {known}"
        return f"{path}.{key}: expected one of {known}, got {ctx.get('tag')!r}"
    own = [e for e in group if e["type"] in ("value_error", "assertion_error")]
    if own:  # our validators' own words say what was wrong, and what was given
        return f"{path}: {expectation(own[0])}"
    wanted = list(dict.fromkeys(expectation(e) for e in group))
    return f"{path}: expected {', or '.join(wanted)}{_got(value)}"


def _got(value: Any) -> str:
    shown = repr(value)
    return "" if len(shown) > 60 or isinstance(value, dict | list) else f", got {shown}"


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _pattern(pattern: str) -> str:
    """A character class such as ^[A-Za-z0-9_.-]+$ in words; any other pattern as it is."""
    found = re.fullmatch(r"\^\[(.+)\]\+\$", pattern)
    if found is None:
        return f"text matching the pattern {pattern}"
    rest, words = found.group(1), list[str]()
    for span, word in (("A-Za-z", "letters"), ("a-zA-Z", "letters"), ("0-9", "digits")):
        if span in rest:
            rest, words = rest.replace(span, ""), [*words, word]
    rest = rest.replace("\\", "")
    words += [f'"{c}"' for c in rest]
    listed = ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else words[0]
    return f"only {listed} (no spaces)"


def _choices(expected: str) -> str:
    """pydantic's "'model' or 'rule'" (or "'a', 'b' or 'c'") with double quotes."""
    return expected.replace("'", '"')


def _is_tag(part: Any) -> bool:
    """A kind a union tried (`literal['model','rule']`, `constrained-float`, `int`, a model's
    class name), which pydantic puts in the path."""
    if not isinstance(part, str):
        return False
    return part in _TYPE_NAMES or bool(_TAG.match(part)) or part in _model_names()


# pydantic's names of the kinds a union tries: literal[...], function-after[...], list[...] ...
_TAG = re.compile(r"^(?:[a-z]+(?:-[a-z]+)*\[.*\]|constrained-[a-z]+)$", re.DOTALL)


@functools.cache
def _model_names() -> frozenset[str]:
    found: set[str] = set()
    todo = [BaseModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub.__name__)
            todo.append(sub)
    return frozenset(found)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (list, tuple, Union, types.UnionType):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None
