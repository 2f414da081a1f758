"""The engine's Control on its own: commands are logged as they come, for the tick they are
due before, and taken at that boundary, in order; a paused run waits, a step lets one tick
through, a speed limit holds ticks apart."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest

from simulacra.core import Tick
from simulacra.engine import Control, Intervention, Interventions

START = datetime(2024, 2, 14, 7, 0)


@dataclass
class _Log:
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    writes: int = 0

    def emit(self, payload: Any, *, t: Any = None, agent: Any = None) -> None:
        self.events.append((payload.KIND, payload.to_data()))

    def write(self) -> int:
        self.writes += 1
        return 0


class _Engine:
    def __init__(self) -> None:
        self.interventions = Interventions()
        self.writer = _Log()
        self.step = 1

    @property
    def tick(self) -> Tick:
        now = START + timedelta(minutes=10 * (self.step - 1))
        return Tick(
            self.step,
            now,
            now + timedelta(minutes=10),
            timedelta(minutes=10),
            self.step == 1,
            False,
            False,
        )


def _written(item: Intervention) -> dict[str, Any]:
    return {"at": item.at.isoformat(), "type": item.type, "text": item.text}


async def _ticks(control: Control, engine: _Engine, count: int) -> None:
    control.attach(engine)  # type: ignore[arg-type]
    for _ in range(count):
        await control.boundary(engine)  # type: ignore[arg-type]
        engine.step += 1


async def test_a_paused_run_waits_and_a_step_lets_one_tick_through() -> None:
    control, engine = Control(_written, paused=True), _Engine()
    running = asyncio.create_task(_ticks(control, engine, 3))
    await asyncio.sleep(0.2)
    assert engine.step == 1 and control.status().paused
    assert engine.writer.writes == 1  # the log reaches the file when the run stops
    control.send("teacher", Intervention(START, "thought", "hello", ("marta",)))
    control.step("teacher")
    await asyncio.sleep(0.3)
    assert engine.step == 2 and control.status().paused and control.status().step == 2
    # The thought joined the interventions, due at the tick it was taken before.
    (item,) = engine.interventions.items
    assert item.at == START and item.text == "hello"
    control.resume("teacher")
    await asyncio.wait_for(running, 5)
    assert [(kind, d["who"], d["action"], d["step"]) for kind, d in engine.writer.events] == [
        ("console", "teacher", "thought", 1),
        ("console", "teacher", "step", 1),
        ("console", "teacher", "resume", 2),
    ]


async def test_a_speed_limit_holds_ticks_apart_and_a_finished_run_takes_nothing() -> None:
    control, engine = Control(_written), _Engine()
    control.set_speed("teacher", 20.0)
    started = time.monotonic()
    await _ticks(control, engine, 5)
    assert time.monotonic() - started >= 4 / 20  # five ticks, four gaps of 1/20 s at least
    with pytest.raises(ValueError, match="above 0"):
        control.set_speed("teacher", 0)
    control.finish()
    with pytest.raises(RuntimeError, match="ended"):
        control.pause("teacher")


async def test_a_command_sent_while_a_tick_runs_is_logged_at_once_for_the_next() -> None:
    control, engine = Control(_written), _Engine()
    control.send("early", Intervention(START, "thought", "before the run", ("marta",)))
    assert not engine.writer.events  # the engine has not started: logged when it does
    control.attach(engine)  # type: ignore[arg-type]
    assert [d["step"] for _, d in engine.writer.events] == [1]
    await control.boundary(engine)  # type: ignore[arg-type]
    # Tick 1 runs: what comes now is on file before it ends, due before tick 2, at its time.
    control.send("teacher", Intervention(START, "thought", "mid-tick", ("marta",)))
    writes = engine.writer.writes
    kind, data = engine.writer.events[-1]
    assert (kind, data["who"], data["step"]) == ("console", "teacher", 2)
    assert data["intervention"]["at"] == (START + timedelta(minutes=10)).isoformat()
    assert writes >= 1 and control.status().queued == 1
    engine.step = 2
    await control.boundary(engine)  # type: ignore[arg-type]
    early, late = engine.interventions.items
    assert (early.at, late.at) == (START, START + timedelta(minutes=10))
    assert len(engine.writer.events) == 2  # taken, not logged again
