"""`load_model(spec)`: from a spec string to a ready LanguageModel."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import parse_qs

from simulacra.errors import UserError
from simulacra.llm.cache import SqliteCache
from simulacra.llm.catalogue import DEFAULT_MODEL, CatalogueError
from simulacra.llm.embedded import (
    EmbeddedBackend,
    EmbeddedModelError,
    EmbeddedSettings,
    Repetition,
    default_instances,
    embedded_name,
    resolve,
)
from simulacra.llm.gateway import Backend, Gateway
from simulacra.llm.openai_compat import (
    OpenAIBackend,
    OpenAISpecError,
    openai_name,
    parse_openai_spec,
)
from simulacra.llm.replay import open_replay
from simulacra.llm.scripted import ScriptedModel

SPEC_HELP = (
    '"embedded", "embedded:<catalogue name or .gguf path>", "openai:<base_url>?model=<name>", '
    '"scripted" or "replay:<run dir>"'
)
OPTIONS = (
    "attempts",
    "timeout_s",
    "concurrency",
    "cache",
    "on_call",
    "ledger",
    "temperature",
    "max_tokens",
    "repetition",
    "unreachable_after",
    "context_tokens",
)
_EMBEDDED_OPTIONS = ("threads", "parallel", "instances")
MAX_SLOTS = 16  # each slot holds a 2,048-token context: 47 MB of KV cache for the 135M model
MAX_INSTANCES = 8  # each loads its own compute buffers; more than the cores only waits


class ModelSpecError(UserError, ValueError):
    """A model spec that names no known backend or is malformed."""


@overload
def load_model(spec: Literal["scripted"], **options: Any) -> ScriptedModel: ...
@overload
def load_model(spec: str, **options: Any) -> Gateway: ...
def load_model(spec: str, **options: Any) -> Gateway:
    """Build the model a spec names.

    Options go to the Gateway: attempts, timeout_s, concurrency, cache (a path or a
    SqliteCache), on_call (called with each request and completion), ledger, temperature
    and max_tokens (set, they replace every request's own), and context_tokens (a served
    model's window; the embedded model knows its own); `repetition` (a Repetition) goes to
    the embedded backend, and other backends keep their own sampling.
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ModelSpecError(f"unknown load_model option(s) {unknown}; allowed: {list(OPTIONS)}")
    cache = options.pop("cache", None)
    repetition = options.pop("repetition", None)
    if isinstance(cache, str | Path):
        cache = SqliteCache(cache)
    kind, rest = _split(spec)
    if kind == "scripted" and not rest:
        return ScriptedModel(cache=cache, **options)
    if kind == "replay":
        if cache is not None:
            raise ModelSpecError(f"{spec}: a replay reads its run's own cache; pass no cache")
        return _replay(spec, rest, options)
    return Gateway(_backend(spec, options, repetition), cache=cache, **options)


def _split(spec: str) -> tuple[str, str]:
    """The backend kind and the rest: `openai:<url>`, `embedded:<name>?threads=2`,
    `embedded?threads=2`."""
    kind, sep, rest = spec.partition(":")
    if "?" in kind:
        kind, _, query = kind.partition("?")
        rest = f"?{query}{sep}{rest}"
    return kind, rest


def _backend(spec: str, options: dict[str, Any], repetition: Repetition | None) -> Backend:
    kind, rest = _split(spec)
    if kind == "embedded":
        # A slot for every call in flight, so that each agent keeps its prompt cache, and a
        # shared one (EmbeddedBackend), unless the spec says otherwise.
        concurrency = int(options.get("concurrency", 8))
        slots = 1 if concurrency == 1 else min(concurrency + 1, MAX_SLOTS)
        name, settings = _embedded(spec, rest, slots)
        return EmbeddedBackend(settings, name, repetition)
    if kind == "openai":
        try:
            return OpenAIBackend(
                parse_openai_spec(spec),
                timeout_s=float(options.get("timeout_s", 60.0)),
                concurrency=int(options.get("concurrency", 8)),
            )
        except OpenAISpecError as exc:
            raise ModelSpecError(str(exc)) from exc
    raise ModelSpecError(f"unknown model spec {spec!r}; expected {SPEC_HELP}")


def _embedded(spec: str, rest: str, slots: int | None = None) -> tuple[str, EmbeddedSettings]:
    """`embedded[:<name>][?threads=N&parallel=N&instances=N]`: the file is found now, loaded
    on first use. `slots` is the number of slots (`parallel`) when the spec gives none; the
    instances default to default_instances() unless one slot must take every call."""
    base, _, query_text = rest.partition("?")
    query = parse_qs(query_text, keep_blank_values=True)
    unknown = sorted(set(query) - set(_EMBEDDED_OPTIONS))
    if unknown:
        raise ModelSpecError(
            f"model spec {spec!r}: unknown option(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(_EMBEDDED_OPTIONS)}"
        )
    numbers: dict[str, int] = {}
    for key, values in query.items():
        if not values[-1].isdigit() or int(values[-1]) < 1:
            raise ModelSpecError(f"model spec {spec!r}: {key} must be a positive whole number")
        numbers[key] = int(values[-1])
    name = base or DEFAULT_MODEL
    try:
        path, model = resolve(name)
    except (EmbeddedModelError, CatalogueError) as exc:
        raise ModelSpecError(f"model spec {spec!r}: {exc}") from exc
    if slots is not None:
        numbers.setdefault("parallel", slots)
    settings = EmbeddedSettings(path, model=model, **numbers)
    if "instances" not in numbers and settings.parallel > 1:
        settings = replace(settings, instances=default_instances(settings.threads))
    if settings.parallel == 1 and settings.instances > 1:
        raise ModelSpecError(
            f"model spec {spec!r}: instances must be 1 with one slot (parallel=1, or a "
            "concurrency of 1): that slot keeps its prompt cache for every call"
        )
    if settings.instances > MAX_INSTANCES:
        raise ModelSpecError(f"model spec {spec!r}: instances must be at most {MAX_INSTANCES}")
    return embedded_name(name), settings


def model_name(spec: str) -> str:
    """The name a spec's model carries in caches and logs, computed without loading it."""
    kind, rest = _split(spec)
    if kind == "scripted" and not rest:
        return "scripted"
    if kind == "embedded":
        return embedded_name(rest.partition("?")[0] or DEFAULT_MODEL)
    if kind == "openai":
        try:
            return openai_name(parse_openai_spec(spec))
        except OpenAISpecError as exc:
            raise ModelSpecError(str(exc)) from exc
    raise ModelSpecError(f"unknown model spec {spec!r}; expected {SPEC_HELP}")


def check_spec(spec: str) -> str:
    """Raise ModelSpecError if `spec` is malformed; load nothing. Returns the spec."""
    kind, rest = _split(spec)
    if kind == "replay":
        if not rest:
            raise ModelSpecError(f"model spec {spec!r} names no run directory: replay:<run dir>")
        return spec
    if kind == "embedded":
        _embedded(spec, rest)
    model_name(spec)
    return spec


def _replay(spec: str, rest: str, options: dict[str, Any]) -> Gateway:
    if not rest:
        raise ModelSpecError(f"model spec {spec!r} names no run directory: replay:<run dir>")
    try:
        backend = open_replay(rest, model_name)
    except (OSError, ValueError) as exc:
        raise ModelSpecError(str(exc)) from exc
    return Gateway(backend, cache=backend.cache, **options)
