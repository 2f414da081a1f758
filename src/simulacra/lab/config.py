"""The lab's settings, its conditions (the source's five, and the seed-only library) and the
model budget a lab run obeys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.embed import EmbedderKind
from simulacra.errors import UserError
from simulacra.lab.sandbox import SandboxLimits
from simulacra.llm.budget import Price
from simulacra.llm.config import ModelConfig


class LabConfig(BaseModel):
    """Defaults are the source's: 5 inner tries, 3 outer attempts, at most 10 candidates,
    a lint every 10 memory changes, a pause after 10 iterations without one. An attempt's
    action loop is bounded by `max_steps` steps and `act_tokens` tokens as well."""

    model_config = ConfigDict(extra="forbid")

    inner_tries: int = Field(default=5, ge=1, le=10)
    max_steps: int = Field(default=30, ge=1, le=200, description="action steps an attempt")
    act_tokens: int = Field(
        default=60_000, ge=1_000, description="tokens the action loop may spend an attempt"
    )
    outer_attempts: int = Field(default=3, ge=1, le=10)
    candidates: int = Field(default=10, ge=1, le=10)
    lint_every: int = Field(default=10, ge=1, description="memory changes between lints")
    idle_limit: int = Field(default=10, ge=1, description="iterations without a memory change")
    # Metadata is short and plentiful (the bench indexes 20,000 entries): the fast embedder.
    embedder: EmbedderKind = "model2vec"
    seed: int = 0
    prompts: bool = Field(default=True, description="keep every prompt sent in the run folder")
    sandbox: SandboxLimits = Field(default_factory=SandboxLimits)


@dataclass(frozen=True)
class Condition:
    name: str
    procedural: bool  # skills retrieved and loaded
    semantic: bool  # pages retrieved and loaded
    framework: bool  # critic, inner retries and outer attempts
    seed_only: bool = False  # memory is the seed alone, not the library given

    @property
    def memory(self) -> bool:
        return self.procedural or self.semantic


CONDITIONS = {
    c.name: c
    for c in (
        Condition("full", True, True, True),
        Condition("procedural", True, False, True),
        Condition("semantic", False, True, True),
        Condition("framework", False, False, True),
        Condition("vanilla", False, False, False),
        # The full system on a library made from the seed alone: beside `full`, what
        # learning added.
        Condition("seed", True, True, True, seed_only=True),
    )
}


class UnknownCondition(UserError):
    """A condition name that is not one of CONDITIONS."""


def condition(name: str) -> Condition:
    found = CONDITIONS.get(name)
    if found is None:
        raise UnknownCondition(f"--condition {name}: unknown; allowed: {', '.join(CONDITIONS)}")
    return found


class LimitsError(UserError):
    """A lab `--set` that is not a model budget, price or setting, or one they reject."""


LIMITS = ("budget", "price")  # model.budget.* and model.price.*
SETTINGS = ("timeout_s", "attempts", "context_tokens", "temperature")  # model.NAME


def model_limits(spec: str, sets: Sequence[str], price: Price | None = None) -> ModelConfig:
    """The model section a lab run obeys: its spec, the `model.budget` and `model.price` that
    `--set model.budget.calls=40` (values read as YAML) gives, and the served model's settings
    `--set model.timeout_s=300` (also attempts, context_tokens, temperature); `price` (a price
    table's, `bench --prices`) is its `model.price` where given."""
    raw: dict[str, Any] = {"spec": spec}
    if price is not None:
        raw["price"] = price.model_dump()
    for item in sets:
        key, sep, value = item.partition("=")
        parts = key.strip().split(".")
        setting = len(parts) == 2 and parts[1] in SETTINGS
        limit = len(parts) == 3 and parts[1] in LIMITS
        if not sep or parts[0] != "model" or not (setting or limit):
            raise LimitsError(
                f'--set "{item}": the lab takes model.budget.NAME=VALUE, '
                f"model.price.NAME=VALUE and model.NAME=VALUE for {', '.join(SETTINGS)}"
            )
        if price is not None and parts[1] == "price":
            raise LimitsError(f'--set "{item}": the price table (--prices) gives model.price')
        if setting:
            raw[parts[1]] = yaml.safe_load(value)
        else:
            raw.setdefault(parts[1], {})[parts[2]] = yaml.safe_load(value)
    try:
        return ModelConfig.model_validate(raw)
    except ValidationError as exc:
        problems = [f"model.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise LimitsError("; ".join(problems)) from None
