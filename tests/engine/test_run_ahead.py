"""The run-ahead on a world small enough to follow by hand: four agents on a line, A and B
talk in the first tick, C stands next to B and D far away. D decides its second tick while
A and B are still talking; C, who would see what B does, waits; the log is lockstep's. Where
the world says its decide phase is local, D goes on while A is still deciding. A world that
claims a horizon too short lets C run ahead, and the engine stops the run."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from simulacra.core import Action, Encounter, Observation, Outcome, Phase, Resolution, Tick
from simulacra.engine import Calendar, Clock, Engine, EventRouter
from simulacra.engine.ahead import Diverged
from simulacra.llm import ScriptedModel
from simulacra.runlog import EventWriter, read_events
from simulacra.runlog.compare import without_wall

PLACES = {"A": 0, "B": 1, "C": 2, "D": 9}  # where each stands on the line
START = datetime(2024, 2, 13, 7, 0)
DECIDE, ACT = Phase("decide", order="seeded"), Phase("act", order="seeded")


class Line:
    """Agents stand still on a line; each sees what its neighbours (one step away) do."""

    def __init__(self, horizon: float, local: bool) -> None:
        self.doing = dict.fromkeys(PLACES, "waking up")
        self.talking: dict[str, str] = {}
        self.reach = horizon
        self.decide = Phase("decide", order="seeded", local=local)  # pairs only neighbours

    def layout(self) -> dict[str, Any]:
        return {}

    def phases(self, tick: Tick) -> Sequence[Phase]:
        return [self.decide, ACT]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        near = {o: self.doing[o] for o, x in PLACES.items() if 0 < abs(x - PLACES[agent]) <= 1}
        return Observation(agent, "line", facts={"near": near, "with": self.talking.get(agent)})

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        if phase == DECIDE.name:
            pairs = [Encounter(a, str(x.target)) for a, x in actions.items() if x.kind == "talk"]
            for e in pairs:
                self.talking[e.first], self.talking[e.second] = e.second, e.first
            return Resolution(encounters=pairs)
        for agent, action in actions.items():
            self.doing[agent] = action.description
        return Resolution(outcomes={a: Outcome(True) for a in actions})

    def frame(self) -> dict[str, Any]:
        return {"agents": dict(self.doing)}

    def advance(self, tick: Tick) -> None:
        self.talking.clear()

    def snapshot(self) -> dict[str, Any]:
        return {"doing": dict(self.doing)}

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.doing = dict(snapshot["doing"])

    def position(self, agent: str) -> tuple[float, float]:
        return (float(PLACES[agent]), 0.0)

    def horizon(self, tick: Tick) -> float | None:
        return self.reach


class Walker:
    """Asks A to talk to B in the first tick; acts out what it saw; notes when it decided."""

    def __init__(self, agent: str, diary: list[str], fails: str = "") -> None:
        self.id = agent
        self.diary = diary
        self.fails = fails  # "D decide 07:10": this decision raises

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        self.diary.append(f"{self.id} {phase} {now:%H:%M}")
        if self.diary[-1] == self.fails:
            raise RuntimeError(f"{self.fails} broke")
        if phase == DECIDE.name:
            first = now == START and self.id == "A"
            if first:
                await asyncio.sleep(0.1)  # A thinks long before it speaks
                self.diary.append("A has decided")
            return Action("talk", "hello", target="B") if first else None
        partner = observation.facts["with"]
        if partner:
            return Action("do", f"talking with {partner}")
        return Action("do", f"busy at {now:%H:%M} beside {sorted(observation.facts['near'])}")

    async def converse(self, other: Walker, now: datetime, topic: str) -> None:
        for turn in range(3):
            await asyncio.sleep(0.02)  # each turn a call to a model
            self.diary.append(f"{self.id}-{other.id} turn {turn}")

    def state(self) -> dict[str, Any]:
        return {}

    def restore(self, state: Mapping[str, Any]) -> None:
        pass


def play(
    root: Path, schedule: str, horizon: float, local: bool = False, fails: str = ""
) -> tuple[list[Any], list[str], int]:
    """The log (wall-clock fields aside), the minds' diary, decisions taken from ahead."""
    diary: list[str] = []
    writer = EventWriter(root / "events.jsonl")
    engine = Engine(
        Line(horizon, local),
        {a: Walker(a, diary, fails) for a in PLACES},
        model=ScriptedModel(),
        router=EventRouter(writer, list(PLACES)),
        clock=Clock(Calendar.counting(START, 3, timedelta(minutes=10))),
        seed=3,
        schedule=schedule,
    )
    engine.start()
    try:
        asyncio.run(engine.run())
    finally:
        writer.close()
    events = [(e.kind, e.agent, e.t, without_wall(e.data)) for e in read_events(writer.path)]
    return events, diary, engine.taken_ahead


def test_the_far_agent_runs_ahead_the_neighbour_waits_and_the_log_is_lockstep(
    tmp_path: Path,
) -> None:
    lockstep, steps, _ = play(tmp_path / "a", "lockstep", horizon=1.5)
    ahead, diary, taken = play(tmp_path / "b", "out_of_order", horizon=1.5)
    assert ahead == lockstep
    # Lockstep: nobody decides the second tick before the conversation's last turn.
    assert steps.index("D decide 07:10") > steps.index("A-B turn 2")
    # Out of order: D (8 steps from B) acted and decided its second tick during the talk;
    # C, next to B, did neither before the talk ended.
    ended = diary.index("A-B turn 2")
    assert diary.index("D decide 07:10") < ended
    assert diary.index("C decide 07:10") > ended
    assert taken >= 2  # D's act in the first tick and its decision in the second


def test_a_horizon_too_short_stops_the_run_before_its_log_differs(tmp_path: Path) -> None:
    # C counts as apart from B: it runs ahead on a copy where B has not acted yet, and sees
    # B "waking up" where lockstep shows B "talking with A".
    with pytest.raises(Diverged, match="C ran ahead into step 2"):
        play(tmp_path, "out_of_order", horizon=0.5)


def test_a_local_phase_lets_the_far_agent_go_on_while_one_still_decides(tmp_path: Path) -> None:
    lockstep, _, _ = play(tmp_path / "a", "lockstep", horizon=1.5, local=True)
    ahead, diary, taken = play(tmp_path / "b", "out_of_order", horizon=1.5, local=True)
    assert ahead == lockstep
    # B and C are within reach of A (C through B): they wait; D acts and decides its second
    # tick while A is still deciding its first.
    decided = diary.index("A has decided")
    assert diary.index("D act 07:00") < decided and diary.index("D decide 07:10") < decided
    assert diary.index("C act 07:00") > decided and diary.index("B act 07:00") > decided
    assert taken >= 2


def test_a_mind_that_fails_ahead_fails_the_run_as_it_would_in_turn(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="D decide 07:10 broke"):
        play(tmp_path / "a", "lockstep", horizon=1.5, fails="D decide 07:10")
    with pytest.raises(RuntimeError, match="D decide 07:10 broke"):
        play(tmp_path / "b", "out_of_order", horizon=1.5, fails="D decide 07:10")
