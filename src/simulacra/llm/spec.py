"""`load_model(spec)`: from a spec string to a ready LanguageModel."""

from __future__ import annotations

from typing import Any

from simulacra.llm.gateway import Gateway


class ModelSpecError(ValueError):
    """A model spec that names no known backend or is malformed."""


SPEC_HELP = (
    '"embedded", "embedded:<name>", "openai:<base_url>?model=<name>", "scripted" or "replay:<dir>"'
)


def load_model(spec: str, **options: Any) -> Gateway:
    """Build the model a spec names. `options` go to the Gateway (attempts, timeout_s, ...)."""
    kind, _, rest = spec.partition(":")
    if kind == "scripted" and not rest:
        from simulacra.llm.scripted import ScriptedModel

        return ScriptedModel(**options)
    raise ModelSpecError(f"unknown model spec {spec!r}; expected {SPEC_HELP}")
