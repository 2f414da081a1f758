"""What a run's minds called: run.json's `minds` (each mind its agents run, with the model
spec that mind calls, or null for a mind that calls none, such as a classical baseline) and
the one label that run.json's readers (`inspect`, the report, the viewer) show for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MINDS = "minds"  # the run.json key


def model_label(info: Mapping[str, Any]) -> str:
    """`embedded` for a run whose minds call that model; `none: the logit mind calls no
    model` for a run whose minds call none; each mind with its model for a mixed run. A run
    written before run.json kept its minds shows the spec its scenario named."""
    named = str(info.get("model") or "unknown")
    minds = info.get(MINDS)
    if not isinstance(minds, Mapping) or not minds:
        return named
    used = {str(mind): str(spec) if spec else None for mind, spec in sorted(minds.items())}
    specs = set(used.values())
    if specs == {None}:
        names = " and ".join(f"the {mind} mind" for mind in used)
        return f"none: {names} {'calls' if len(used) == 1 else 'call'} no model"
    if len(specs) == 1:
        return str(specs.pop())
    return "; ".join(f"{mind}: {spec or 'no model'}" for mind, spec in used.items())
