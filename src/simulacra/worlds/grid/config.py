"""The grid scenario file: validated before anything loads, errors naming the field path."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class ScenarioError(ValueError):
    """A scenario file that cannot be run, with every offending field named."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlaceSpec(_Strict):
    name: str = Field(min_length=1)
    type: str = Field(min_length=1)
    center: tuple[int, int]
    extent: tuple[int, int] = Field(description="half-widths in cells along x and y")
    capacity: int = Field(ge=0)

    @model_validator(mode="after")
    def _extent_is_not_negative(self) -> PlaceSpec:
        if min(self.extent) < 0:
            raise ValueError(f"extent must be two half-widths >= 0, got {list(self.extent)}")
        return self


class FireSpec(_Strict):
    name: str = Field(min_length=1)
    start_step: int = Field(ge=1)
    position: tuple[int, int]
    intensity: float = Field(ge=0.0, le=1.0)
    radius: float = Field(gt=0.0)


class CommunicationSpec(_Strict):
    # Euclidean by default: the same distance the fire prompt reports, so one ruler for both.
    distance: float = Field(default=5.0, gt=0.0)
    metric: Literal["euclidean", "chebyshev"] = "euclidean"


class WorldSpec(_Strict):
    kind: Literal["grid"] = "grid"
    half_size: int = Field(default=25, ge=1, description="the grid spans -half_size..half_size")
    communication: CommunicationSpec = CommunicationSpec()
    places: tuple[PlaceSpec, ...] = ()
    fires: tuple[FireSpec, ...] = ()

    @model_validator(mode="after")
    def _names_are_unique_and_inside(self) -> WorldSpec:
        for label, names in (
            ("places", [p.name for p in self.places]),
            ("fires", [f.name for f in self.fires]),
        ):
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise ValueError(f"{label}: names must be unique; repeated: {repeated}")
        for place in self.places:
            reach = max(abs(c) + e for c, e in zip(place.center, place.extent, strict=True))
            if reach > self.half_size:
                h = self.half_size
                raise ValueError(f"place {place.name!r} reaches beyond the field -{h}..{h}")
        return self


class PersonSpec(_Strict):
    id: str = Field(min_length=1)
    gender: str = Field(min_length=1)
    position: tuple[int, int] | None = None
    details: dict[str, str] = Field(default_factory=dict)


class AgentsSpec(_Strict):
    count: int = Field(default=20, ge=1)
    genders: tuple[str, ...] = Field(default=("female", "male"), min_length=1)
    people: tuple[PersonSpec, ...] = Field(
        default=(), description="explicit agents; the rest of `count` is generated from the seed"
    )

    @model_validator(mode="after")
    def _people_fit_count(self) -> AgentsSpec:
        if len(self.people) > self.count:
            raise ValueError(f"people lists {len(self.people)} agents but count is {self.count}")
        ids = [p.id for p in self.people]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"people: ids must be unique; repeated: {repeated}")
        return self


class MemorySpec(_Strict):
    size: int = Field(default=5, ge=0, description="memories shown per prompt")
    messages: int = Field(default=10, ge=0, description="received messages kept per agent")
    # bounded: the last `size` notes (the source); stream: simulacra.memory's MemoryStream.
    mode: Literal["bounded", "stream"] = "bounded"
    embedder: Literal["minilm", "model2vec", "hashing"] = "minilm"


class ModelSpec(_Strict):
    spec: str = "scripted"
    temperature: float = Field(default=0.2, ge=0.0)
    max_tokens: int = Field(default=512, ge=16)


class OutputSpec(_Strict):
    frames: bool = True
    report: bool = Field(default=True, description="report.html and viewer.html")


class GridScenario(_Strict):
    scenario: str = "grid"
    seed: int = 0
    steps: int = Field(default=7, ge=0)
    world: WorldSpec = WorldSpec()
    agents: AgentsSpec = AgentsSpec()
    memory: MemorySpec = MemorySpec()
    model: ModelSpec = ModelSpec()
    output: OutputSpec = OutputSpec()


def _field_errors(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "<root>"
        lines.append(f"  {where}: {error['msg']}")
    return "\n".join(lines)


def parse_scenario(data: Any, *, source: str = "scenario") -> GridScenario:
    """Validate a loaded mapping; a ScenarioError lists each bad field path and the rule broken."""
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ScenarioError(f"{source}: expected a mapping at the top level, got {kind}")
    try:
        return GridScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(
            f"{source}: invalid grid scenario\n{_field_errors(exc)}\n"
            "Fix these fields (see scenarios/hazard.yaml for a complete example)."
        ) from None


def load_scenario(path: str | Path) -> GridScenario:
    """Read and validate a grid scenario YAML file."""
    file = Path(path)
    if not file.is_file():
        raise ScenarioError(f"{file}: no such scenario file")
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{file}: not valid YAML: {exc}") from None
    return parse_scenario(data, source=str(file))
