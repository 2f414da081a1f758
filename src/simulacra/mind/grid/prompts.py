"""The two prompts an agent answers each step: what to say, then where to go.

They carry numbers, never judgements: a place's head count, capacity and occupancy rate, a
fire's position, intensity, radius and distance. The message prompt leaves out everyone's
coordinates; the action prompt has them, with the messages exchanged this step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator

from simulacra.llm import MaxChars, Message, chat

Cell = tuple[int, int]

MESSAGE_SYSTEM = """\
You are agent {agent} ({gender}) on a two-dimensional grid that holds these kinds of places: \
{place_types}.
Each step you may send one message to the agents you can currently talk to.
Answer with one JSON object and nothing else."""

MESSAGE_USER = """\
Step {step}

## Your state
{state}
{fires}
## Agents you can talk to
{neighbours}

## Your memories
{memories}

## Messages you have received
{received}

## Task
Choose the message you send to the agents you can talk to, at most 200 words. You may share \
what you observe, what happened to you, or what you think about the places and the situation. \
Leave "message" empty to send nothing.

JSON fields: "message" (string, may be empty), "reasoning" (string: why this message)."""

ACTION_SYSTEM = """\
You are agent {agent} ({gender}) on a two-dimensional grid that holds these kinds of places: \
{place_types}.
Each step you either stay where you are or move one cell.
Answer with one JSON object and nothing else."""

ACTION_USER = """\
Step {step}

## Your state
{state}
{fires}
## Places
{places}

## Agents you can talk to
{neighbours}

## Your memories
{memories}

## Messages you have received
{received}
{sent}
## Actions
- "stay": keep your position
- "move" with a direction: "up" (y+1), "down" (y-1), "left" (x-1), "right" (x+1)
The field spans x and y from -{half_size} to {half_size}.

JSON fields: "action" ("move" or "stay"), "direction" ("up", "down", "left" or "right"; only \
with "move"), "memory" (string: what you want to remember next step), "reasoning" (string: why)."""


class MessageChoice(BaseModel):
    """The answer to the message prompt; an empty message sends nothing."""

    message: Annotated[str, MaxChars(300)] = Field(
        default="", description="the message, or empty to send none"
    )
    reasoning: Annotated[str, MaxChars(160)] = ""

    @field_validator("message", "reasoning", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class MoveChoice(BaseModel):
    """The answer to the action prompt."""

    action: Literal["move", "stay"]
    direction: Literal["up", "down", "left", "right"] | None = None
    memory: Annotated[str, MaxChars(200)] = ""
    reasoning: Annotated[str, MaxChars(160)] = ""

    @field_validator("action", "direction", mode="before")
    @classmethod
    def _lower_case(cls, value: Any) -> Any:
        # Small models write "Move" or " up"; the meaning is unambiguous.
        return value.strip().lower() if isinstance(value, str) and value.strip() else None

    @field_validator("memory", "reasoning", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


MESSAGE_FALLBACK = MessageChoice(message="", reasoning="(fallback: no valid reply)")
MOVE_FALLBACK = MoveChoice(action="stay", reasoning="(fallback: no valid reply)")


@dataclass(frozen=True)
class Place:
    name: str
    type: str
    center: Cell
    x_range: Cell
    y_range: Cell
    capacity: int

    @classmethod
    def of(cls, facts: Mapping[str, Any] | None) -> Place | None:
        if facts is None:
            return None
        return cls(
            str(facts["name"]),
            str(facts["type"]),
            _cell(facts["center"]),
            _cell(facts["x_range"]),
            _cell(facts["y_range"]),
            int(facts["capacity"]),
        )


@dataclass(frozen=True)
class Fire:
    """A fire the agent perceives, and how far away it is."""

    name: str
    position: Cell
    intensity: float
    radius: float
    distance: float


@dataclass(frozen=True)
class Neighbour:
    agent: str
    gender: str
    position: Cell
    place: Place | None


@dataclass(frozen=True)
class Received:
    step: int
    sender: str
    text: str


@dataclass(frozen=True)
class AgentView:
    """Everything one agent may be told at one step."""

    agent: str
    gender: str
    details: tuple[tuple[str, str], ...]
    step: int
    position: Cell
    place: Place | None
    present: int  # agents in `place`, this agent included
    places: tuple[Place, ...]
    half_size: int
    fires: tuple[Fire, ...] = ()
    neighbours: tuple[Neighbour, ...] = ()
    memories: tuple[str, ...] = ()
    received: tuple[Received, ...] = ()
    refusal: str = ""  # why last step's move was refused, if it was

    @classmethod
    def of(cls, agent: str, facts: Mapping[str, Any]) -> AgentView:
        """The view from the grid world's observation facts (its module docstring)."""
        places = tuple(p for p in map(Place.of, facts["places"]) if p is not None)
        return cls(
            agent=agent,
            gender=str(facts["gender"]),
            details=tuple((str(k), str(v)) for k, v in facts.get("details", ())),
            step=int(facts["step"]),
            position=_cell(facts["position"]),
            place=Place.of(facts.get("place")),
            present=int(facts["present"]),
            places=places,
            half_size=int(facts["half_size"]),
            fires=tuple(
                Fire(
                    str(f["name"]),
                    _cell(f["position"]),
                    float(f["intensity"]),
                    float(f["radius"]),
                    float(f["distance"]),
                )
                for f in facts.get("fires", ())
            ),
            neighbours=tuple(
                Neighbour(
                    str(n["agent"]), str(n["gender"]), _cell(n["position"]), Place.of(n["place"])
                )
                for n in facts.get("neighbours", ())
            ),
            refusal=str(facts.get("refusal", "")),
        )


def _cell(value: Any) -> Cell:
    return int(value[0]), int(value[1])


def _place_types(places: Sequence[Place]) -> str:
    types = list(dict.fromkeys(p.type for p in places))
    return ", ".join(types) if types else "none"


def _state(view: AgentView, *, with_position: bool) -> str:
    lines = [f"- gender: {view.gender}"]
    lines += [f"- {key}: {value}" for key, value in view.details]
    if with_position:
        lines.append(f"- position: ({view.position[0]}, {view.position[1]})")
    place = view.place
    if place is None:
        lines.append("- inside a place: no")
    else:
        rate = view.present / place.capacity if place.capacity else float("inf")
        lines += [
            "- inside a place: yes",
            f"- place: {place.name} ({place.type})",
            f"- agents here: {view.present}; capacity: {place.capacity}; "
            f"occupancy rate: {rate:.2f}",
        ]
    if view.refusal:
        lines.append(f"- last step your move was refused: {view.refusal}")
    return "\n".join(lines)


def _fires(view: AgentView) -> str:
    if not view.fires:
        return ""
    lines = ["", "## Fires you perceive"]
    for f in view.fires:
        lines.append(
            f'- "{f.name}": position ({f.position[0]}, {f.position[1]}); intensity {f.intensity} '
            f"(scale 0.0 to 1.0); radius {f.radius:g}; your distance {f.distance:.2f}"
        )
    return "\n".join(lines) + "\n"


def _where(place: Place | None) -> str:
    return f"in {place.name} ({place.type})" if place else "outside all places"


def _neighbours(view: AgentView, *, with_position: bool) -> str:
    if not view.neighbours:
        return "none"
    lines = []
    for n in view.neighbours:
        at = f" at ({n.position[0]}, {n.position[1]})" if with_position else ""
        lines.append(f"- agent {n.agent} ({n.gender}){at}, {_where(n.place)}")
    return "\n".join(lines)


def _memories(view: AgentView) -> str:
    return "\n".join(f"- {m}" for m in view.memories) if view.memories else "none yet"


def _received(view: AgentView) -> str:
    if not view.received:
        return "none"
    return "\n".join(f"- from agent {r.sender} (step {r.step}): {r.text}" for r in view.received)


def _places(view: AgentView) -> str:
    lines = []
    for p in view.places:
        (x0, x1), (y0, y1) = p.x_range, p.y_range
        lines.append(
            f"- {p.name} ({p.type}): center ({p.center[0]}, {p.center[1]}); x from {x0} to {x1}, "
            f"y from {y0} to {y1}; capacity {p.capacity}"
        )
    return "\n".join(lines) if lines else "none"


def message_prompt(view: AgentView) -> tuple[Message, ...]:
    system = MESSAGE_SYSTEM.format(
        agent=view.agent, gender=view.gender, place_types=_place_types(view.places)
    )
    user = MESSAGE_USER.format(
        step=view.step,
        state=_state(view, with_position=False),
        fires=_fires(view),
        neighbours=_neighbours(view, with_position=False),
        memories=_memories(view),
        received=_received(view),
    )
    return chat(system, user)


def action_prompt(view: AgentView, sent: str) -> tuple[Message, ...]:
    system = ACTION_SYSTEM.format(
        agent=view.agent, gender=view.gender, place_types=_place_types(view.places)
    )
    user = ACTION_USER.format(
        step=view.step,
        state=_state(view, with_position=True),
        fires=_fires(view),
        places=_places(view),
        neighbours=_neighbours(view, with_position=True),
        memories=_memories(view),
        received=_received(view),
        sent=f"\n## The message you sent this step\n{sent}\n" if sent else "",
        half_size=view.half_size,
    )
    return chat(system, user)
