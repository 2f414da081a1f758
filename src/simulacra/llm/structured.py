"""Turn a model's raw text into a validated pydantic value, repairing near-JSON first."""

from __future__ import annotations

import functools
import itertools
import json
import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationError
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

T = TypeVar("T")


class OutputError(ValueError):
    """The model's text could not be read as the requested output."""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_NON_SPACE = re.compile(r"\S")


def _walk(text: str, start: int = 0) -> Iterator[tuple[int, str, bool]]:
    """Each character from `start` with whether a JSON string is open after it: brackets and
    commas count only where it is not (a closing quote reports False but is no bracket)."""
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if escaped:
            escaped = False
        elif in_string and ch == "\\":
            escaped = True
        elif ch == '"':
            in_string = not in_string
        yield i, ch, in_string


def _outermost_object(text: str) -> str:
    start = text.find("{")
    if start < 0:
        return text
    depth = 0
    for i, ch, in_string in _walk(text, start):
        if in_string:
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


def _drop_trailing_commas(text: str) -> str:
    """Remove commas right before a closing bracket, leaving strings alone."""
    kept: list[str] = []
    for i, ch, in_string in _walk(text):
        if not in_string and ch == ",":
            following = _NON_SPACE.search(text, i + 1)
            if following is not None and following.group() in ("}", "]"):
                continue
        kept.append(ch)
    return "".join(kept)


def _close_truncated(text: str) -> str:
    """Close strings and brackets left open by a reply cut off at max_tokens."""
    stack: list[str] = []
    in_string = False
    for _, ch, in_string in _walk(text):
        if in_string:
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    tail = '"' if in_string else ""
    body = (text + tail).rstrip().rstrip(",")
    if body.endswith(":"):
        body += " null"
    return body + "".join(reversed(stack))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return False
    return True


def repair_json(text: str) -> str:
    """Best-effort repair of what small models emit: code fences, prose around the object,
    trailing commas, single quotes and truncation. Valid JSON comes back unchanged (but
    stripped); the result may still be invalid when the text is beyond repair. Never raises."""
    stripped = text.strip()
    if _is_json(stripped):
        return stripped
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    candidate = _outermost_object(candidate.strip())
    if _is_json(candidate):
        return candidate
    candidate = _drop_trailing_commas(candidate)
    if _is_json(candidate):
        return candidate
    closed = _drop_trailing_commas(_close_truncated(candidate))
    if _is_json(closed):
        return closed
    if "'" in candidate and '"' not in candidate:
        return repair_json(candidate.replace("'", '"'))
    return closed


def parse_output(text: str, output: type[BaseModel]) -> BaseModel:
    """Validate `text` against `output`, repairing near-JSON; raise OutputError with the reason."""
    try:
        return output.model_validate_json(text)
    except ValidationError as first:
        repaired = repair_json(text)
        try:
            data: Any = json.loads(repaired)
        except json.JSONDecodeError as exc:
            raise OutputError(f"not JSON even after repair: {exc.msg}: {text[:120]!r}") from exc
        except RecursionError as exc:
            raise OutputError("not JSON: nested too deeply") from exc
        try:
            return output.model_validate(data)
        except ValidationError as exc:
            raise OutputError(_describe(exc)) from first


def _describe(exc: ValidationError) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()]
    return "; ".join(parts[:5])


def per_model(build: Callable[[type[BaseModel]], T]) -> Callable[[type[BaseModel]], T]:
    """`build` once per output model, kept for as long as the model class lives. A reaction's
    model is made for its call (its enums are the people and memories of the moment): a
    bounded cache dropped it while the call waited for a slot among thousands, and its schema
    was built again to send it (two of the three builds a reaction cost)."""
    built: weakref.WeakKeyDictionary[type[BaseModel], T] = weakref.WeakKeyDictionary()

    @functools.wraps(build)
    def once(output: type[BaseModel]) -> T:
        found = built.get(output)
        if found is None:
            found = built[output] = build(output)
        return found

    return once


@per_model
def output_schema(output: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent to backends that constrain decoding. Cached: building it costs
    about a millisecond, more than the gateway's own work on a call. Treat it as read-only."""
    return output.model_json_schema()


@dataclass(frozen=True)
class MaxChars:
    """Marks a str field `Annotated[str, MaxChars(60)]`: constrained decoding stops at the
    limit (the schema's maxLength), and validation trims rather than rejects, so a small model
    cannot ramble to max_tokens and a served model that says more is cut, not failed."""

    limit: int

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def trim(value: Any) -> Any:
            return value[: self.limit] if isinstance(value, str) else value

        return core_schema.no_info_before_validator_function(trim, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        found = handler(schema)
        found["maxLength"] = self.limit
        return found


_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class MaxWords:
    """Marks a str field `Annotated[str, MaxWords(200)]`: validation keeps the first `limit`
    words (the text up to the end of the last one) rather than rejecting a longer answer. A
    word limit is no JSON-schema bound: the field's description should state it, and decoding
    is bounded by the request's max_tokens."""

    limit: int

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def trim(value: Any) -> Any:
            if not isinstance(value, str):
                return value
            words = list(itertools.islice(_WORD.finditer(value), self.limit + 1))
            return value[: words[self.limit - 1].end()] if len(words) > self.limit else value

        return core_schema.no_info_before_validator_function(trim, handler(source))
