"""A run's live control (`simulacra run --console`): pause and resume at tick boundaries, one
tick at a time, a speed limit, and interventions sent while it runs.

The console's server answers in its own thread; it queues commands here, and logs each at once
as a `console` event (who, what, before which step), so that one received mid-tick survives a
kill before the tick ends: a resumed run reads it back. The engine takes them at the next tick
boundary, in the order they came, and fires a queued intervention in that tick through the path
a scheduled one takes: it joins the run's interventions, due at the tick's time, so a
checkpoint counts it fired and the run's config with it scheduled writes the same log.

Which tick a command is due before is decided under one lock with the boundary that takes it:
one received while the run waits at a boundary is due before that tick, one received while a
tick runs before the next.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, Protocol

from simulacra.core import Tick
from simulacra.engine.interventions import Intervention, Interventions
from simulacra.runlog import EventWriter
from simulacra.runlog.events import ConsoleAction

Command = Literal["pause", "resume", "step", "speed"]
WAIT_S = 0.05  # how often a paused run looks for a command
# An intervention as the scenario format writes it, for the log (see `written`).
Written = Callable[[Intervention], dict[str, Any]]


class Controlled(Protocol):
    """What the control needs of the engine at a boundary."""

    interventions: Interventions
    writer: EventWriter

    @property
    def tick(self) -> Tick: ...


@dataclass(frozen=True)
class Status:
    """Where the run stands, as the console shows it."""

    paused: bool  # the run stands still at a tick boundary now
    pausing: bool  # a pause is asked for: the run stops at the next boundary
    speed: float | None  # ticks per second at most; None: as fast as it goes
    step: int  # the next tick's number (ticks done + 1)
    queued: int  # commands not yet taken
    finished: bool


class Control:
    """Thread-safe: `pause`, `resume`, `step`, `set_speed` and `send` from any thread; the
    engine awaits `boundary` before each tick. `written` turns an intervention into the
    dict the `console` event carries (the pipeline writes it as a scenario would)."""

    def __init__(self, written: Written, *, paused: bool = False) -> None:
        self._written = written
        self._lock = threading.Lock()
        self._queue: list[tuple[str, Command | Intervention, float | None]] = []
        self._engine: Controlled | None = None  # once the engine runs: its log is written
        self._due: tuple[int, datetime] | None = None  # the step (and time) a command is for
        self._paused = paused
        self._speed: float | None = None
        self._steps = 0  # ticks to run before pausing again
        self._last = 0.0  # when the last tick started (monotonic), for the speed limit
        self._step = 1
        self._finished = False
        self._waiting = False  # paused at a boundary, waiting for a command

    # --- from the console's thread ------------------------------------------------------

    def pause(self, who: str) -> None:
        self._put(who, "pause")

    def resume(self, who: str) -> None:
        self._put(who, "resume")

    def step(self, who: str) -> None:
        self._put(who, "step")

    def set_speed(self, who: str, ticks_per_s: float | None) -> None:
        if ticks_per_s is not None and not ticks_per_s > 0:
            raise ValueError(f"speed: ticks per second must be above 0, got {ticks_per_s}")
        self._put(who, "speed", ticks_per_s)

    def send(self, who: str, item: Intervention) -> None:
        """Queue an intervention (its `at` is set to the tick it fires in)."""
        self._put(who, item)

    def status(self) -> Status:
        with self._lock:
            pausing = self._paused and self._steps == 0
            return Status(
                self._waiting, pausing, self._speed, self._step, len(self._queue), self._finished
            )

    def finish(self) -> None:
        """The run ended: commands sent now are refused."""
        with self._lock:
            self._finished, self._waiting = True, False

    # --- from the engine --------------------------------------------------------------------

    def attach(self, engine: Controlled) -> None:
        """The engine is about to run: log what was sent before it did."""
        tick = engine.tick
        with self._lock:
            self._engine, self._due = engine, (tick.step, tick.now)
            waiting, self._queue = self._queue, []
            for who, what, speed in waiting:
                self._log(who, what, speed)

    async def boundary(self, engine: Controlled) -> None:
        """Before a tick: take the queued commands; wait while paused, or for the speed limit."""
        tick = engine.tick
        with self._lock:
            self._step, self._due = tick.step, (tick.step, tick.now)
        while True:
            with self._lock:
                taken, self._queue = self._queue, []
                for _, what, speed in taken:
                    if not isinstance(what, Intervention):
                        self._apply(what, speed)
                go = not self._paused or self._steps > 0
                if go:
                    self._steps = max(self._steps - 1, 0)
                    self._waiting = False
                    limit = self._speed
                    # From now on a command is for the tick after this one.
                    self._due = (tick.step + 1, tick.next)
                else:
                    first = not self._waiting
                    self._waiting = True
            for _, what, _ in taken:
                if isinstance(what, Intervention):
                    engine.interventions.add(what)
            if go:
                break
            if first:  # the log up to here reaches the file, for the viewer of a paused run
                engine.writer.write()
            await asyncio.sleep(WAIT_S)
        if limit is not None:
            wait = self._last + 1 / limit - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        self._last = time.monotonic()

    def _log(self, who: str, what: Command | Intervention, speed: float | None) -> None:
        """Log a command as the tick it is due before takes it (called under the lock, once
        the engine runs), and queue it; an intervention is set to fire at that tick."""
        assert self._engine is not None and self._due is not None
        step, at = self._due
        if isinstance(what, Intervention):
            what = replace(what, at=at)
            action = ConsoleAction(
                who=who, action=what.type, step=step, intervention=self._written(what)
            )
        else:
            action = ConsoleAction(who=who, action=what, step=step, speed=speed)
        writer = self._engine.writer
        writer.emit(action, t=at)
        writer.write()  # on file before the console answers: a kill now loses nothing
        self._queue.append((who, what, speed))

    def _apply(self, command: Command, speed: float | None) -> None:
        """(Under the lock.)"""
        if command == "pause":
            self._paused, self._steps = True, 0
        elif command == "resume":
            self._paused, self._steps = False, 0
        elif command == "step":
            self._paused, self._steps = True, self._steps + 1
        else:
            self._speed = speed

    def _put(self, who: str, command: Command | Intervention, speed: float | None = None) -> None:
        with self._lock:
            if self._finished:
                raise RuntimeError("the run has ended; the console is read-only now")
            if self._engine is None:  # logged when the engine starts (attach)
                self._queue.append((who, command, speed))
            else:
                self._log(who, command, speed)
