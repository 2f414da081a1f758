"""The grid section of a scenario (SD-AgentFoundry-2D): the field, its places with
capacities, the fires, and the rule of who can talk to whom."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


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


class GridConfig(_Strict):
    kind: Literal["grid"] = "grid"
    half_size: int = Field(default=25, ge=1, description="the grid spans -half_size..half_size")
    communication: CommunicationSpec = CommunicationSpec()
    places: tuple[PlaceSpec, ...] = ()
    fires: tuple[FireSpec, ...] = ()
    genders: tuple[str, ...] = Field(
        default=("female", "male"), min_length=1, description="drawn for generated agents"
    )

    @model_validator(mode="after")
    def _names_are_unique_and_inside(self) -> GridConfig:
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


class GridPerson(_Strict):
    """One agent a scenario places by hand; the rest of `agents.count` are generated."""

    id: str = Field(min_length=1)
    gender: str = Field(min_length=1)
    position: tuple[int, int] | None = None
    details: dict[str, str] = Field(default_factory=dict)
