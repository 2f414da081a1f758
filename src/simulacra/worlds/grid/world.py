"""The grid hazard world: a bounded integer field with places, capacities, fires and a local
communication rule. Pure geometry in `Layout` (layout.py); positions and moves in `GridWorld`.

A tick is one step of the source, in two phases. `message`: every agent may send one message,
delivered to the agents it can talk to from where everyone stands before moving. `action`:
every agent stays or moves one cell, applied one agent at a time in roster order; a full place
refuses entry, and the refused agent is told so at the next step. A fire burns from its
`start_step` on.

An agent's observation carries plain data (`facts`), the contract with the minds that read it:
`step`, `gender`, `details` ([key, value] pairs), `position` ([x, y]), `place` (a place, or
None outside), `present` (agents in it), `places`, `half_size`, `fires` (each perceived fire:
`name`, `position`, `intensity`, `radius`, `distance`), `neighbours` (`agent`, `gender`,
`position`, `place`), `refusal` (why last step's move was refused, or ""), and in the
`action` phase `received` (this step's messages: `step`, `sender`, `text`). A place is
`name`, `type`, `center`, `x_range`, `y_range`, `capacity`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simulacra.core import Action, Observation, Outcome, Phase, Resolution, Tick, WorldEvent
from simulacra.runlog.events import MessageSent
from simulacra.worlds.grid import fires
from simulacra.worlds.grid.config import GridConfig, GridPerson
from simulacra.worlds.grid.fires import Cell, Fire
from simulacra.worlds.grid.layout import Layout, Place, cell_of, euclidean

DIRECTIONS: dict[str, Cell] = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}


@dataclass(frozen=True)
class Traits:
    gender: str
    details: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, str]:
        return {"gender": self.gender, **dict(self.details)}


MESSAGE, ACTION = Phase("message"), Phase("action")


class GridWorld:
    """Agents' positions on a layout, one step at a time (see the module's docstring)."""

    def __init__(
        self, layout: Layout, personas: Mapping[str, Traits], positions: Mapping[str, Cell]
    ) -> None:
        if set(personas) != set(positions):
            raise ValueError("every agent needs both a persona and a position")
        for agent, cell in positions.items():
            if not layout.inside_field(cell):
                raise ValueError(f"agent {agent} at {cell} is outside the field")
        self.grid = layout
        self.personas = dict(personas)
        self.positions: dict[str, Cell] = dict(positions)
        self.step = 0
        self.refusals: dict[str, str] = {}  # told to the agent at its next step
        self.placed: dict[str, Fire] = {}  # fires moved or added by an intervention
        # Within a step: who can talk to whom before anyone moves, this step's deliveries,
        # and what the frame reports.
        self._neighbours: dict[str, tuple[str, ...]] = {}
        self._received: dict[str, list[dict[str, Any]]] = {}
        self._actions: dict[str, str] = {}
        self._perceived: dict[str, list[str]] = {}
        self._started: list[str] = []
        self._occupancy: tuple[tuple[Cell, ...], dict[str, int]] | None = None

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.positions)

    def place_of(self, agent: str) -> Place | None:
        return self.grid.place_at(self.positions[agent])

    def _seen_occupancy(self) -> dict[str, int]:
        """Occupancy as every agent of a phase sees it: nobody moves while they look."""
        key = tuple(self.positions.values())
        if self._occupancy is None or self._occupancy[0] != key:
            self._occupancy = (key, self.occupancy())
        return self._occupancy[1]

    def occupancy(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.grid.places}
        for cell in self.positions.values():
            place = self.grid.place_at(cell)
            if place is not None:
                counts[place.name] += 1
        return counts

    def neighbours(self) -> dict[str, tuple[str, ...]]:
        return self.grid.neighbours(self.positions)

    def active_fires(self) -> tuple[Fire, ...]:
        return tuple(f for f in self.grid.fires if f.active(self.step))

    # --- the World protocol -------------------------------------------------------------

    def layout(self) -> dict[str, Any]:
        return self.grid.to_dict()

    def begin(self, tick: Tick) -> None:
        """A new step: fires start, neighbourhoods are fixed, last step's messages are gone."""
        self.step = tick.step
        self._started = [f.name for f in self.grid.fires if f.start_step == self.step]
        self._neighbours = self.neighbours()
        self._received = {a: [] for a in self.agents}
        self._perceived = {
            f.name: [a for a in self.agents if euclidean(self.positions[a], f.position) <= f.radius]
            for f in self.active_fires()
        }

    def phases(self, tick: Tick) -> Sequence[Phase]:
        return [MESSAGE, ACTION]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        here = self.positions[agent]
        place = self.place_of(agent)
        occupancy = self._seen_occupancy()
        persona = self.personas[agent]
        fires = self.grid.perceived_fires(here, self.step)
        facts: dict[str, Any] = {
            "step": self.step,
            "gender": persona.gender,
            "details": [list(pair) for pair in persona.details],
            "position": list(here),
            "place": place.facts() if place else None,
            "present": occupancy[place.name] if place else 0,
            "places": [p.facts() for p in self.grid.places],
            "half_size": self.grid.half_size,
            "fires": [
                {
                    "name": s.fire.name,
                    "position": list(s.fire.position),
                    "intensity": s.fire.intensity,
                    "radius": s.fire.radius,
                    "distance": s.distance,
                }
                for s in fires
            ],
            "neighbours": [
                {
                    "agent": n,
                    "gender": self.personas[n].gender,
                    "position": list(self.positions[n]),
                    "place": p.facts() if (p := self.place_of(n)) else None,
                }
                for n in self._neighbours.get(agent, ())
            ],
            "refusal": self.refusals.get(agent, ""),
        }
        if phase == ACTION.name:
            facts["received"] = list(self._received.get(agent, ()))
        return Observation(
            agent,
            place.name if place else "",
            tuple(f"{s.fire.name} at {s.fire.position}, distance {s.distance:.2f}" for s in fires),
            self._neighbours.get(agent, ()),
            facts,
        )

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        if phase == MESSAGE.name:
            return Resolution(events=self._deliver(actions))
        outcomes: dict[str, Outcome] = {}
        self.refusals = {}
        for agent, action in actions.items():
            before = self.positions[agent]
            outcome = self.apply(agent, action)
            if "refused_by" in outcome.facts:
                self.refusals[agent] = outcome.reason
            place = self.place_of(agent)
            self._actions[agent] = action.description
            facts = {
                "place": place.name if place else None,
                "from": list(before),
                "to": list(self.positions[agent]),
            }
            outcomes[agent] = Outcome(outcome.ok, outcome.reason, facts)
        return Resolution(outcomes=outcomes)

    def _deliver(self, actions: Mapping[str, Action]) -> list[WorldEvent]:
        """Each message to every agent its sender can talk to, from pre-movement positions."""
        delivered = []
        for sender, action in actions.items():
            if action.kind != "say" or not action.description:
                continue
            for recipient in self._neighbours.get(sender, ()):
                note = {"step": self.step, "sender": sender, "text": action.description}
                self._received[recipient].append(note)
                said = MessageSent(to=[recipient], text=action.description, step=self.step)
                delivered.append(WorldEvent(said, agent=sender))
        return delivered

    def apply(self, agent_id: str, action: Action) -> Outcome:
        """`Action("stay")` or `Action("move", target="up"|"down"|"left"|"right")`."""
        if action.kind == "stay":
            return Outcome(True, facts={"moved": False})
        if action.kind != "move" or action.target not in DIRECTIONS:
            return Outcome(False, f"unknown action {action.kind} {action.target}; stayed")
        here = self.positions[agent_id]
        dx, dy = DIRECTIONS[action.target]
        there = self.grid.clamp((here[0] + dx, here[1] + dy))
        if there == here:
            return Outcome(True, "at the field boundary", facts={"moved": False})
        entering = self.grid.place_at(there)
        if entering is not None and entering != self.grid.place_at(here):
            inside = self.occupancy()[entering.name]
            if inside >= entering.capacity:
                return Outcome(
                    False,
                    f"{entering.name} is at capacity ({inside}/{entering.capacity})",
                    facts={"moved": False, "refused_by": entering.name},
                )
        self.positions[agent_id] = there
        return Outcome(True, facts={"moved": True})

    def intervene(self, change: Mapping[str, Any], tick: Tick) -> Resolution:
        """A fire moved or added from this step on (fires.py: the change's fields)."""
        self._place(fires.placed(self.grid.fires, change, tick.step))
        return Resolution()

    def _place(self, fire: Fire) -> None:
        self.grid = self.grid.with_fire(fire)
        self.placed[fire.name] = fire

    def frame(self) -> dict[str, Any]:
        agents = {}
        for agent, (x, y) in self.positions.items():
            place = self.grid.place_at((x, y))
            agents[agent] = {
                "place": place.name if place else None,
                "area": None,
                "x": x,
                "y": y,
                "action": self._actions.get(agent),
            }
        return {
            "agents": agents,
            "positions": {a: list(cell) for a, cell in self.positions.items()},
            "occupancy": self.occupancy(),
            # A fire an intervention placed is a point: the layout's marker is not where it is.
            "fires": [
                fires.written(f) if f.name in self.placed else f.name for f in self.active_fires()
            ],
            "started": list(self._started),
            "perceived": dict(self._perceived),
            "refused": sorted(self.refusals),
        }

    def advance(self, tick: Tick) -> None:
        self._actions = {}
        self._started = []
        self._perceived = {}

    def snapshot(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "positions": {a: list(cell) for a, cell in self.positions.items()},
            "refusals": dict(self.refusals),
            "placed": [fires.written(f) for f in self.placed.values()],
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.step = int(snapshot["step"])
        self.positions = {a: cell_of(snapshot["positions"][a]) for a in self.positions}
        self.refusals = dict(snapshot["refusals"])
        for raw in snapshot.get("placed", ()):
            self._place(fires.read(raw))


def layout_from_config(config: GridConfig) -> Layout:
    return Layout(
        half_size=config.half_size,
        places=tuple(Place(p.name, p.type, p.center, p.extent, p.capacity) for p in config.places),
        fires=tuple(
            Fire(f.name, f.start_step, f.position, f.intensity, f.radius) for f in config.fires
        ),
        communication_distance=config.communication.distance,
        communication_metric=config.communication.metric,
    )


def build_world(
    config: GridConfig, people: Sequence[GridPerson], count: int, seed: int
) -> GridWorld:
    """Explicit people first, then generated agents up to `count`; `seed` fixes genders and
    free positions, drawn uniformly from the cells outside every place."""
    layout = layout_from_config(config)
    rng = random.Random(seed)
    h = layout.half_size
    cells = [(x, y) for x in range(-h, h + 1) for y in range(-h, h + 1)]
    outside = [cell for cell in cells if layout.place_at(cell) is None]
    if not outside:
        raise ValueError("world.places cover the whole field; agents need cells outside them")
    personas: dict[str, Traits] = {}
    positions: dict[str, Cell] = {}
    for person in people:
        personas[person.id] = Traits(person.gender, tuple(sorted(person.details.items())))
        positions[person.id] = person.position or rng.choice(outside)
    for agent in roster(people, count)[len(people) :]:
        personas[agent] = Traits(rng.choice(config.genders))
        positions[agent] = rng.choice(outside)
    return GridWorld(layout, personas, positions)


def roster(people: Sequence[GridPerson], count: int) -> list[str]:
    """The explicit people's ids, then "0", "1" ... (skipping ids taken) up to `count`."""
    ids = [p.id for p in people]
    taken = set(ids)
    number = 0
    while len(ids) < count:
        if str(number) not in taken:
            ids.append(str(number))
        number += 1
    return ids
