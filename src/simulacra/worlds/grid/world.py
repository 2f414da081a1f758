"""The grid hazard world: a bounded integer field with places, capacities, fires and a local
communication rule. Pure geometry in `Layout`; positions and moves in `GridWorld`."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from simulacra.worlds.base import Action, Observation, Outcome, WorldEvent
from simulacra.worlds.grid.config import GridScenario, ScenarioError

Cell = tuple[int, int]

DIRECTIONS: dict[str, Cell] = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}


@dataclass(frozen=True)
class Place:
    """A rectangle of cells: `center` plus or minus `extent` (half-widths), edges included."""

    name: str
    type: str
    center: Cell
    extent: Cell
    capacity: int

    @property
    def x_range(self) -> tuple[int, int]:
        return self.center[0] - self.extent[0], self.center[0] + self.extent[0]

    @property
    def y_range(self) -> tuple[int, int]:
        return self.center[1] - self.extent[1], self.center[1] + self.extent[1]

    def contains(self, cell: Cell) -> bool:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1


@dataclass(frozen=True)
class Fire:
    """A hazard that burns from `start_step` on; perceived at distance <= `radius`."""

    name: str
    start_step: int
    position: Cell
    intensity: float
    radius: float

    def active(self, step: int) -> bool:
        return step >= self.start_step


@dataclass(frozen=True)
class FireSighting:
    fire: Fire
    distance: float


@dataclass(frozen=True)
class Persona:
    gender: str
    details: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, str]:
        return {"gender": self.gender, **dict(self.details)}


def euclidean(a: Cell, b: Cell) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def chebyshev(a: Cell, b: Cell) -> float:
    return float(max(abs(a[0] - b[0]), abs(a[1] - b[1])))


@dataclass(frozen=True)
class Layout:
    """The static world: field, places, fires and the communication rule."""

    half_size: int
    places: tuple[Place, ...] = ()
    fires: tuple[Fire, ...] = ()
    communication_distance: float = 5.0
    communication_metric: str = "euclidean"

    def place_at(self, cell: Cell) -> Place | None:
        return next((p for p in self.places if p.contains(cell)), None)

    def clamp(self, cell: Cell) -> Cell:
        h = self.half_size
        return min(max(cell[0], -h), h), min(max(cell[1], -h), h)

    def inside_field(self, cell: Cell) -> bool:
        return self.clamp(cell) == cell

    def can_communicate(self, a: Cell, b: Cell) -> bool:
        """Close enough, and on the same side of every place boundary: both outside all places
        or both in the same place."""
        measure = chebyshev if self.communication_metric == "chebyshev" else euclidean
        if measure(a, b) > self.communication_distance:
            return False
        return self.place_at(a) == self.place_at(b)

    def neighbours(self, positions: Mapping[str, Cell]) -> dict[str, tuple[str, ...]]:
        """Each agent's communicable agents, in the order of `positions`."""
        ids = list(positions)
        return {
            a: tuple(b for b in ids if b != a and self.can_communicate(positions[a], positions[b]))
            for a in ids
        }

    def perceived_fires(self, cell: Cell, step: int) -> tuple[FireSighting, ...]:
        """Active fires whose radius reaches `cell` (distance <= radius, Euclidean)."""
        sightings = (FireSighting(f, euclidean(cell, f.position)) for f in self.fires)
        return tuple(s for s in sightings if s.fire.active(step) and s.distance <= s.fire.radius)

    def to_dict(self) -> dict[str, Any]:
        """The static layout as the `run` event carries it; `x, y, w, h` are the lower-left cell
        and the size in cells, for viewers that draw rectangles."""
        return {
            "kind": "grid",
            "y_axis": "up",  # "up" (y+1) is north: viewers drawing y downwards mirror it
            "half_size": self.half_size,
            "communication": {
                "distance": self.communication_distance,
                "metric": self.communication_metric,
            },
            "places": [
                {
                    "name": p.name,
                    "kind": p.type,
                    "x": p.x_range[0],
                    "y": p.y_range[0],
                    "w": 2 * p.extent[0] + 1,
                    "h": 2 * p.extent[1] + 1,
                    "center": list(p.center),
                    "extent": list(p.extent),
                    "capacity": p.capacity,
                    "areas": [],
                }
                for p in self.places
            ],
            "fires": [
                {
                    "name": f.name,
                    "start_step": f.start_step,
                    "position": list(f.position),
                    "intensity": f.intensity,
                    "radius": f.radius,
                }
                for f in self.fires
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        comm = data.get("communication", {})
        return cls(
            half_size=int(data["half_size"]),
            places=tuple(
                Place(p["name"], p["kind"], _cell(p["center"]), _cell(p["extent"]), p["capacity"])
                for p in data.get("places", ())
            ),
            fires=tuple(
                Fire(f["name"], f["start_step"], _cell(f["position"]), f["intensity"], f["radius"])
                for f in data.get("fires", ())
            ),
            communication_distance=float(comm.get("distance", 5.0)),
            communication_metric=str(comm.get("metric", "euclidean")),
        )


def _cell(value: Any) -> Cell:
    return int(value[0]), int(value[1])


class GridWorld:
    """Agents' positions on a layout, one step at a time. Moves apply one agent at a time, in the
    order the caller applies them; a full place refuses entry."""

    def __init__(
        self, layout: Layout, personas: Mapping[str, Persona], positions: Mapping[str, Cell]
    ) -> None:
        if set(personas) != set(positions):
            raise ValueError("every agent needs both a persona and a position")
        for agent, cell in positions.items():
            if not layout.inside_field(cell):
                raise ValueError(f"agent {agent} at {cell} is outside the field")
        self.layout = layout
        self.personas = dict(personas)
        self.positions: dict[str, Cell] = dict(positions)
        self.step = 0

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.positions)

    def place_of(self, agent: str) -> Place | None:
        return self.layout.place_at(self.positions[agent])

    def occupancy(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.layout.places}
        for cell in self.positions.values():
            place = self.layout.place_at(cell)
            if place is not None:
                counts[place.name] += 1
        return counts

    def neighbours(self) -> dict[str, tuple[str, ...]]:
        return self.layout.neighbours(self.positions)

    def active_fires(self) -> tuple[Fire, ...]:
        return tuple(f for f in self.layout.fires if f.active(self.step))

    def observe(self, agent_id: str) -> Observation:
        place = self.place_of(agent_id)
        sightings = self.layout.perceived_fires(self.positions[agent_id], self.step)
        return Observation(
            agent=agent_id,
            place=place.name if place else "",
            texts=tuple(
                f"{s.fire.name} at {s.fire.position}, distance {s.distance:.2f}" for s in sightings
            ),
            nearby_agents=self.neighbours()[agent_id],
            facts={"position": self.positions[agent_id], "fires": sightings},
        )

    def apply(self, agent_id: str, action: Action) -> Outcome:
        """`Action("stay")` or `Action("move", target="up"|"down"|"left"|"right")`."""
        if action.kind == "stay":
            return Outcome(True, facts={"moved": False})
        if action.kind != "move" or action.target not in DIRECTIONS:
            return Outcome(False, f"unknown action {action.kind} {action.target}; stayed")
        here = self.positions[agent_id]
        dx, dy = DIRECTIONS[action.target]
        there = self.layout.clamp((here[0] + dx, here[1] + dy))
        if there == here:
            return Outcome(True, "at the field boundary", facts={"moved": False})
        entering = self.layout.place_at(there)
        if entering is not None and entering != self.layout.place_at(here):
            inside = self.occupancy()[entering.name]
            if inside >= entering.capacity:
                return Outcome(
                    False,
                    f"{entering.name} is at capacity ({inside}/{entering.capacity})",
                    facts={"moved": False, "refused_by": entering.name},
                )
        self.positions[agent_id] = there
        return Outcome(True, facts={"moved": True})

    def advance(self, dt: timedelta = timedelta(0)) -> list[WorldEvent]:
        """Begin the next step (a grid step has no duration: `dt` is ignored); report the fires
        that start now."""
        self.step += 1
        return [
            WorldEvent(
                "fire",
                f"{f.name} starts at {f.position} with intensity {f.intensity}",
                {"name": f.name, "position": list(f.position)},
            )
            for f in self.layout.fires
            if f.start_step == self.step
        ]

    def snapshot(self) -> dict[str, Any]:
        agents = {}
        for agent, (x, y) in self.positions.items():
            place = self.layout.place_at((x, y))
            agents[agent] = {"place": place.name if place else None, "x": x, "y": y}
        return {
            "step": self.step,
            "agents": agents,
            "occupancy": self.occupancy(),
            "fires": [f.name for f in self.active_fires()],
        }


def layout_from_scenario(scenario: GridScenario) -> Layout:
    world = scenario.world
    return Layout(
        half_size=world.half_size,
        places=tuple(Place(p.name, p.type, p.center, p.extent, p.capacity) for p in world.places),
        fires=tuple(
            Fire(f.name, f.start_step, f.position, f.intensity, f.radius) for f in world.fires
        ),
        communication_distance=world.communication.distance,
        communication_metric=world.communication.metric,
    )


def world_from_scenario(scenario: GridScenario, seed: int) -> GridWorld:
    """Explicit people first, then generated agents; `seed` fixes genders and free positions,
    drawn uniformly from the cells outside every place."""
    layout = layout_from_scenario(scenario)
    rng = random.Random(seed)
    h = layout.half_size
    cells = [(x, y) for x in range(-h, h + 1) for y in range(-h, h + 1)]
    outside = [cell for cell in cells if layout.place_at(cell) is None]
    if not outside:
        raise ScenarioError("world.places cover the whole field; agents need cells outside them")
    personas: dict[str, Persona] = {}
    positions: dict[str, Cell] = {}
    for i, person in enumerate(scenario.agents.people):
        if person.position is not None and not layout.inside_field(person.position):
            raise ScenarioError(
                f"agents.people.{i}.position: {list(person.position)} is outside the field "
                f"-{h}..{h}"
            )
        personas[person.id] = Persona(person.gender, tuple(sorted(person.details.items())))
        positions[person.id] = person.position or rng.choice(outside)
    next_id = 0
    while len(personas) < scenario.agents.count:
        agent = str(next_id)
        next_id += 1
        if agent in personas:
            continue
        personas[agent] = Persona(rng.choice(scenario.agents.genders))
        positions[agent] = rng.choice(outside)
    return GridWorld(layout, personas, positions)
