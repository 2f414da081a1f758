"""The two prompts an agent answers each step: what to say, then where to go.

They are the source's (SD-AgentFoundry-2D, appendix A.1), character for character, with two
departures: the place types are listed in the order the scenario gives them (the source's
order came from iterating a set, so it could change from run to run), and an agent's persona
details, where a scenario gives any, follow its gender. They carry numbers, never judgements:
a place's head count, capacity and occupancy rate, a fire's position, intensity, radius and
distance. The message prompt leaves out everyone's coordinates; the action prompt has them,
with the message the agent chose to send.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from simulacra.llm import MaxChars, MaxWords, Message

Cell = tuple[int, int]

# The source's two templates (its appendix A.1), line for line: a single user message with
# the instructions in it. Slots in braces; `state`, `fires` and the others are rendered below.
MESSAGE_PROMPT = """\
You are Agent {agent} ({gender}) in a 2D world with multiple places ({place_types}).

=== YOUR CURRENT STATE ===
{state}
{fires}
=== NEARBY AGENTS (you can communicate with these agents) ===
{neighbours}

=== PREVIOUS MEMORY ===
{memories}

=== MESSAGES FROM OTHERS ===
{received}

=== YOUR TASK ===
Decide what message you want to send to nearby agents. You can share your observations, \
experiences, or thoughts about the places and situation.

=== RESPOND IN JSON ===
{{
    "message": "message to nearby agents (max 200 words, optional if you don't want to send \
a message)",
    "reasoning": "brief explanation of why you want to send this message"
}}

Step: {step}
"""

ACTION_PROMPT = """\
You are Agent {agent} ({gender}) in a 2D world with multiple places ({place_types}).

=== YOUR CURRENT STATE ===
{state}
{fires}
=== PLACE LOCATIONS ===
{places}

=== NEARBY AGENTS ===
{neighbours}

=== PREVIOUS MEMORY ===
{memories}

=== MESSAGES FROM OTHERS ===
{received}
{sent}=== AVAILABLE ACTIONS ===
- "stay": remain at current position
- "move" with direction: "up" (Y+1), "down" (Y-1), "left" (X-1), "right" (X+1)

Field boundaries: X and Y from -{half_size} to +{half_size}

=== RESPOND IN JSON ===
{{
    "action": "move" or "stay",
    "direction": "up", "down", "left", or "right" (only if action is "move"),
    "memory": "what you want to remember for the next step (your thoughts, observations, \
intentions)",
    "reasoning": "brief explanation of your decision"
}}

Step: {step}
"""

MAX_MESSAGE_WORDS = 200
# Our additions to the source's prompts, each off unless a scenario turns it on
# (`agents.options.grid.extras`): "refusal" tells an agent why last step's move was refused
# (a full place); "capacity" adds each place's capacity to the place list.
Extra = Literal["refusal", "capacity"]
EXTRAS: tuple[Extra, ...] = ("refusal", "capacity")


class GridOptions(BaseModel):
    """The grid agent's settings (`agents.options.grid`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extras: tuple[Extra, ...] = Field(
        default=(), description="our additions to the source's prompts: refusal, capacity"
    )


class MessageChoice(BaseModel):
    """The answer to the message prompt; an empty message sends nothing."""

    message: Annotated[str, MaxWords(MAX_MESSAGE_WORDS)] = Field(
        default="", description=f"the message, at most {MAX_MESSAGE_WORDS} words; empty: none"
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
    return ", ".join(dict.fromkeys(p.type for p in places))


def _state(view: AgentView, extras: Sequence[Extra], *, with_position: bool) -> str:
    """The CURRENT STATE block, ending where the source's ends: the place's numbers, if any."""
    lines = [f"Gender: {view.gender}"]
    lines += [f"{key}: {value}" for key, value in view.details]
    if with_position:
        lines.append(f"Position: ({view.position[0]}, {view.position[1]})")
    place = view.place
    lines.append(f"In place: {'Yes' if place else 'No'}")
    lines.append(f"Current place: {place.name}" if place else "")
    if place is None:
        lines.append("")
    else:
        rate = view.present / place.capacity if place.capacity else float("inf")
        lines += [
            "",
            f"You are currently in the {place.type} ({place.name}).",
            f"  Number of agents here: {view.present}",
            f"  Capacity: {place.capacity}",
            f"  Occupancy rate: {rate:.2f}",
        ]
    if "refusal" in extras and view.refusal:
        lines.append(f"Your last move was refused: {view.refusal}")
    return "\n".join(lines)


def _fires(view: AgentView) -> str:
    if not view.fires:
        return ""
    lines = ["", "=== FIRE EVENT ==="]
    for f in view.fires:
        lines += [
            f'Fire "{f.name}":',
            f"  Position: ({f.position[0]}, {f.position[1]})",
            f"  Intensity: {f.intensity} (scale: 0.0 to 1.0)",
            f"  Radius: {f.radius:g}",
            f"  Your distance: {f.distance:.2f}",
        ]
    return "\n".join(lines) + "\n"


def _where(place: Place | None) -> str:
    return f"in {place.name} ({place.type})" if place else "outside the places"


def _neighbours(view: AgentView, *, with_position: bool) -> str:
    if not view.neighbours:
        return "No nearby agents."
    lines = []
    for n in view.neighbours:
        at = f"is at ({n.position[0]}, {n.position[1]}) and is" if with_position else "is"
        lines.append(f"Agent {n.agent} ({n.gender}) {at} {_where(n.place)}")
    return "\n".join(lines)


def _memories(view: AgentView) -> str:
    return "\n".join(f"- {m}" for m in view.memories) or "No previous experiences."


def _received(view: AgentView) -> str:
    return "\n".join(f"from Agent {r.sender}: {r.text}" for r in view.received) or (
        "No messages received."
    )


def _places(view: AgentView, extras: Sequence[Extra]) -> str:
    lines = []
    for p in view.places:
        (x0, x1), (y0, y1) = p.x_range, p.y_range
        capacity = f", capacity {p.capacity}" if "capacity" in extras else ""
        lines.append(
            f"{p.name} ({p.type}): center at ({p.center[0]}, {p.center[1]}), covers X from {x0} "
            f"to {x1}, Y from {y0} to {y1}{capacity}"
        )
    return "\n".join(lines)


def message_prompt(view: AgentView, extras: Sequence[Extra] = ()) -> tuple[Message, ...]:
    text = MESSAGE_PROMPT.format(
        agent=view.agent,
        gender=view.gender,
        place_types=_place_types(view.places),
        state=_state(view, extras, with_position=False),
        fires=_fires(view),
        neighbours=_neighbours(view, with_position=False),
        memories=_memories(view),
        received=_received(view),
        step=view.step,
    )
    return (Message("user", text),)


def action_prompt(view: AgentView, sent: str, extras: Sequence[Extra] = ()) -> tuple[Message, ...]:
    text = ACTION_PROMPT.format(
        agent=view.agent,
        gender=view.gender,
        place_types=_place_types(view.places),
        state=_state(view, extras, with_position=True),
        fires=_fires(view),
        places=_places(view, extras),
        neighbours=_neighbours(view, with_position=True),
        memories=_memories(view),
        received=_received(view),
        sent=f"\n=== MESSAGE YOU DECIDED TO SEND ===\n{sent}\n" if sent else "",
        half_size=view.half_size,
        step=view.step,
    )
    return (Message("user", text),)
