"""The World protocol: how the engine lets agents see and act on a world.

Worlds never import `simulacra.mind`; the engine wires agents to a world through this protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol, runtime_checkable


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
    """An agent's intended operation on the world. `kind` is world-specific ("move", "use" ...)."""

    kind: str
    description: str = ""
    target: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What the world did with an action; a rejected action says why."""

    ok: bool
    reason: str = ""
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class WorldEvent:
    """Something that happened in the world on its own (a fire starts, a bus arrives)."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class World(Protocol):
    def observe(self, agent_id: str) -> Observation: ...

    def apply(self, agent_id: str, action: Action) -> Outcome: ...

    def advance(self, dt: timedelta) -> list[WorldEvent]: ...

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready state for the viewer and for checkpoints."""
        ...
