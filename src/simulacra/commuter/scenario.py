"""The commute scenario file: the experiment (`commute:`), the executor, the model and the sweep.

`load_commute_scenario(path, overrides)` reads the YAML, inlines the profiles file it names,
applies `--set key.path=value` overrides and validates the whole, so that a sweep fails
before any run starts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from simulacra.commuter.agent import VARIANTS, Variant
from simulacra.commuter.run import CommuteConfig
from simulacra.experiments.load import ScenarioError, apply_override
from simulacra.llm import ModelConfig
from simulacra.worlds.commute import load_profiles

Executor = Literal["builtin", "sumo"]


class SweepPlan(BaseModel):
    """Variants x replicates. Replicate r runs with `seeds[r]` (given) or `seed + r` (from
    the base seed); every variant of a replicate shares its seed, so variants are compared
    on the same random draws."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    variants: tuple[Variant, ...] = Field(default=VARIANTS, min_length=1)
    replicates: int | None = Field(default=None, ge=1)
    seed: int | None = None
    seeds: tuple[int, ...] | None = None
    workers: int = Field(default=2, ge=1)
    ray_address: str | None = None

    @model_validator(mode="after")
    def _seeds_fit_replicates(self) -> SweepPlan:
        if self.seeds is not None and self.replicates not in (None, len(self.seeds)):
            raise ValueError(
                f"sweep.replicates is {self.replicates} but sweep.seeds lists "
                f"{len(self.seeds)} seeds; give one seed per replicate or drop one of the two"
            )
        if len(set(self.variants)) != len(self.variants):
            raise ValueError(f"sweep.variants repeats a variant: {list(self.variants)}")
        return self

    def replicate_seeds(self, base: int) -> tuple[int, ...]:
        if self.seeds is not None:
            return self.seeds
        start = base if self.seed is None else self.seed
        return tuple(start + r for r in range(self.replicates or 1))


class CommuteScenario(BaseModel):
    """A whole commute scenario file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="commute", pattern=r"^[A-Za-z0-9_.-]+$")
    commute: CommuteConfig
    executor: Executor = "builtin"
    model: ModelConfig = ModelConfig()
    sweep: SweepPlan = SweepPlan()

    @field_validator("model", mode="before")
    @classmethod
    def _spec_alone(cls, value: Any) -> Any:
        # `model: embedded` is short for `model: {spec: embedded}`.
        return {"spec": value} if isinstance(value, str) else value


def load_commute_scenario(
    source: str | Path | Mapping[str, Any],
    overrides: Sequence[str] | None = None,
    *,
    model_spec: str | None = None,
    base: Path | None = None,
) -> CommuteScenario:
    """A scenario from a YAML file (or its parsed mapping, with files relative to `base`).

    `model_spec` replaces the scenario's model before validation, so a scenario naming a model
    that is not installed still runs with another."""
    if isinstance(source, Mapping):
        raw, name, base = copy.deepcopy(dict(source)), "scenario", base or Path.cwd()
    else:
        path = Path(source)
        if not path.is_file():
            raise ScenarioError(str(path), [f"file not found: {path.resolve()}"])
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ScenarioError(str(path), ["scenario: expected a YAML mapping of fields"])
        name, base = str(path), base or path.parent
    commute = raw.get("commute")
    if not isinstance(commute, dict):
        raise ScenarioError(name, ["commute: missing; a commute scenario needs a commute: section"])
    if isinstance(commute.get("profiles"), str):
        profiles = base / commute["profiles"]
        commute["profiles"] = load_profiles(profiles).model_dump(mode="json")
    for override in overrides or ():
        apply_override(raw, override, name)
    if model_spec is not None:
        model = raw.get("model")
        raw["model"] = {**model, "spec": model_spec} if isinstance(model, dict) else model_spec
    try:
        return CommuteScenario.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'scenario'}: {e['msg']}" for e in exc.errors()
        ]
        raise ScenarioError(name, problems) from None
