"""The run itself: its start and end, the world after each tick, the scenario's
interventions, the headline measures and the checkpoints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulacra.runlog.events.payload import Payload


@dataclass(frozen=True, kw_only=True)
class RunStarted(Payload):
    """The run's first event: what runs, on which model, the world's static layout (for the
    viewer: `places` with `name`, `kind`, `x`, `y`, `w`, `h`), each agent's persona, the clock
    (`start`, `end`, `tick_minutes`, `ticks`), the ablation and the mind."""

    KIND = "run"
    scenario: str
    seed: int
    model: str
    world: dict[str, Any]
    agents: dict[str, Any]
    clock: dict[str, Any]
    ablation: str | None = None
    mind: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunEnded(Payload):
    """The run's last event: `completed`, `failed` (with the error), `interrupted`, or
    `stopped: budget` (with the limit reached)."""

    KIND = "run.end"
    status: str
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class WorldState(Payload):
    """The world after each tick (step 0: before the first): every agent's `place`, `x`, `y`,
    `action` (and `area` where the world has areas), and the world's own extras (town:
    objects, occupancy, and on a tile map the tiles each agent walked since the last frame;
    grid: positions, occupancy, fires, started, perceived, refused; commute: day, strike,
    modal split, taxi wait, punctuality; elfarol: week, attendance, crowded; embodied: each
    agent's yaw, pitch, steps, path, geodesic distance left, collisions, clamps, unreadable
    replies, done and success, and the task)."""

    KIND = "world"
    step: int
    agents: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class InterventionFired(Payload):
    """A scenario's intervention: a `thought` (agent: its holder), a world `event` (with the
    world's `change`), a forced `conversation` (its `agents`) or a `correction` of a fact (the
    `agents` told, all when null; the word groups it `contradicts`)."""

    KIND = "intervention"
    AGENT = "id or null"
    type: str
    text: str
    agents: list[str] | None = None
    change: dict[str, Any] | None = None
    contradicts: list[list[str]] | None = None


@dataclass(frozen=True, kw_only=True)
class ConsoleAction(Payload):
    """What a person did at a run's live console (`simulacra run --console`), logged when the
    console receives it, for the tick boundary where it takes effect, before tick `step`
    runs (so one sent mid-tick survives a kill before the tick ends): `who` did `action` (`pause`,
    `resume`, `step`, `speed` with its ticks per second, or an intervention's type, with the
    `intervention` as a scenario writes it, fired in that tick like a scheduled one). Runs
    are compared without these events: pausing changes nothing, and what an intervention did
    is in the log as any intervention's is."""

    KIND = "console"
    who: str
    action: str
    step: int
    intervention: dict[str, Any] | None = None
    speed: float | None = None


@dataclass(frozen=True, kw_only=True)
class Measured(Payload):
    """A measure: at interview times (`aware`, with the agents), and each headline figure at
    the end of a run."""

    KIND = "metric"
    name: str
    value: float
    agents: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class CheckpointSaved(Payload):
    """A checkpoint after `step` ticks; `offset` is events.jsonl's size in bytes before this
    line, `path` the checkpoint folder."""

    KIND = "checkpoint"
    step: int
    offset: int
    path: str
