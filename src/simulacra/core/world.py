"""The World protocol and the values that cross it.

A tick is split into the phases its world declares. In each phase the engine shows every
agent its observation, gathers the minds' actions concurrently, and hands them to
`World.resolve` in one order (the roster's or a seeded shuffle); the world applies them and
says what came of each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from simulacra.runlog.events import Payload


@dataclass(frozen=True)
class Observation:
    """What one agent perceives now, as plain sentences plus structured facts."""

    agent: str
    place: str
    texts: tuple[str, ...] = ()
    nearby_agents: tuple[str, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Action:
    """An agent's intended operation on the world. `kind` is world-specific ("move", "do" ...)."""

    kind: str
    description: str = ""
    target: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What the world did with an action; a rejected action says why.

    `facts` join the action's event; `logged=False` keeps a repeat of the agent's last action
    out of the log (the world knows what is news)."""

    ok: bool
    reason: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    logged: bool = True


@dataclass(frozen=True)
class WorldEvent:
    """Something the world brought about that goes into the log (a delivered message, say),
    with `agent` as its subject."""

    payload: Payload
    agent: str | None = None


@dataclass(frozen=True)
class Encounter:
    """Two agents the world brought together to talk; the engine runs their conversation."""

    first: str
    second: str
    topic: str = ""


@dataclass(frozen=True)
class Address:
    """Someone who is no mind of the run (a person's visitor) said `line` to `agent`; the
    engine has the agent answer. `speaker` is their id, `name` and `description` what the
    agent sees of them. An empty `line`: `agent` chose to talk to them, and speaks first,
    about `topic`."""

    agent: str
    speaker: str
    name: str
    description: str
    line: str
    topic: str = ""


@dataclass(frozen=True)
class Resolution:
    """What a phase's actions came to: an outcome per acting agent, world events to log,
    conversations to hold, and lines between agents and someone outside the run's minds."""

    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    events: Sequence[WorldEvent] = ()
    encounters: Sequence[Encounter] = ()
    addresses: Sequence[Address] = ()


@dataclass(frozen=True)
class Phase:
    """One part of a tick. `minds`: the agents decide in it (else the world acts alone).
    `order`: the order the world applies the actions in, the roster's or a seeded shuffle.
    `local`: in a `Spatial` world, what the world does with an agent's action reads and
    changes nothing beyond the horizon from it (so agents far from those still deciding may
    go on: engine/ahead.py)."""

    name: str
    minds: bool = True
    order: Literal["roster", "seeded"] = "roster"
    local: bool = False


@dataclass(frozen=True)
class Tick:
    """Where the clock stands: the tick's number (`step`, from 1; step 0 is the start state),
    its simulated time, when the next tick comes (nights or weekends may lie between), and
    whether it opens or closes a simulated day or the run."""

    step: int
    now: datetime
    next: datetime
    length: timedelta
    starts_day: bool
    ends_day: bool
    last: bool


@runtime_checkable
class World(Protocol):
    """A world: its space and rules, and nothing of language models."""

    def layout(self) -> dict[str, Any]:
        """The static description the run's first event carries (places, for the viewer)."""
        ...

    def phases(self, tick: Tick) -> Sequence[Phase]: ...

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation: ...

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        """Apply `actions` in their mapping's order."""
        ...

    def frame(self) -> dict[str, Any]:
        """The state now, for the log and the viewer: `agents` (id -> `place`, `x`, `y`,
        `action`) and world-specific extras."""
        ...

    def advance(self, tick: Tick) -> None:
        """Move from this tick to the next."""
        ...

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready state for checkpoints; `restore` takes it back."""
        ...

    def restore(self, snapshot: Mapping[str, Any]) -> None: ...


# What a world may do beyond the protocol, as a mind's abilities are optional (mind.py): the
# engine asks `isinstance(world, Intervenable)` and the like before it calls them.


@runtime_checkable
class Intervenable(Protocol):
    """A world that takes changes from outside: a scenario's `event` intervention (its fields
    are the world's own) or a `conversation` one. Raises ValueError with a reason when it
    cannot make the change."""

    def intervene(self, change: Mapping[str, Any], tick: Tick) -> Resolution: ...


@runtime_checkable
class Spatial(Protocol):
    """A world whose agents can only affect each other from near: `position` is where an
    agent stands, `horizon(tick)` the distance (the larger coordinate difference) an agent
    can cover in the tick plus how far it perceives; agents farther apart than that at the
    tick's start cannot see or meet each other by the next tick. None: no such bound now (the
    engine keeps the tick in lockstep)."""

    def position(self, agent: str) -> tuple[float, float]: ...

    def horizon(self, tick: Tick) -> float | None: ...


@runtime_checkable
class Begins(Protocol):
    """A world with work to do as a tick starts, before its phases (fires that start this
    step, who can hear whom): `phases()` then only says which phases the tick has."""

    def begin(self, tick: Tick) -> None: ...
