"""A mind's `decision` event, built one way: from a model's completion, or from a rule (a
classical baseline: no model, so no raw text and no fallback)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulacra.llm import Completion
from simulacra.runlog.events import Decided

_FROM_VALUE: Any = object()  # parsed defaults to the completion's validated value


def model_decision(
    purpose: str,
    choice: str,
    completion: Completion,
    *,
    parsed: dict[str, Any] | None = _FROM_VALUE,
    step: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Decided:
    """The decision a model call made: its raw text, whether the fallback stood in, and why
    earlier attempts failed; `parsed` is the validated value in JSON form unless given."""
    if parsed is _FROM_VALUE:
        value = completion.value
        parsed = None if value is None else value.model_dump(mode="json")
    return Decided(
        purpose=purpose,
        choice=choice,
        raw=completion.text,
        parsed=parsed,
        fallback=completion.fallback,
        error=completion.error,
        step=step,
        extra=dict(extra or {}),
    )


def rule_decision(
    purpose: str,
    choice: str,
    parsed: dict[str, Any],
    *,
    reason: str = "",
    step: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Decided:
    """The decision a rule made; `reason`, where the rule gives one, stands as its raw text."""
    return Decided(
        purpose=purpose,
        choice=choice,
        raw=reason,
        parsed=parsed,
        fallback=False,
        step=step,
        extra=dict(extra or {}),
    )
