"""Simulated time: a calendar of ticks between a start and an end, optionally only waking hours."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta


@dataclass(frozen=True)
class Calendar:
    """Ticks every `tick` from `start` until `end`; with `wake`/`sleep` set, nights are skipped."""

    start: datetime
    end: datetime
    tick: timedelta = timedelta(minutes=10)
    wake: time | None = None
    sleep: time | None = None

    def __post_init__(self) -> None:
        if self.tick <= timedelta(0):
            raise ValueError(f"a tick must be positive, not {self.tick}")
        if self.end <= self.start:
            raise ValueError(f"the schedule ends ({self.end}) before it starts ({self.start})")

    def awake(self, t: datetime) -> bool:
        if self.wake is None or self.sleep is None:
            return True
        if self.wake <= self.sleep:
            return self.wake <= t.time() < self.sleep
        return t.time() >= self.wake or t.time() < self.sleep

    def times(self) -> list[datetime]:
        """Every tick's simulated time, in order."""
        found: list[datetime] = []
        t = self.start
        while t < self.end:
            if self.awake(t):
                found.append(t)
            t += self.tick
        return found

    def day(self, t: datetime) -> int:
        """Days since the first day of the run (0 for the first)."""
        return (t.date() - self.start.date()).days


class Clock:
    """Where a run is in its calendar. `index` is the number of ticks already done."""

    def __init__(self, calendar: Calendar, index: int = 0) -> None:
        self.calendar = calendar
        self._times = calendar.times()
        self.index = index

    @property
    def ticks(self) -> int:
        return len(self._times)

    @property
    def done(self) -> bool:
        return self.index >= len(self._times)

    @property
    def now(self) -> datetime:
        if self.done:
            return self._times[-1] + self.calendar.tick if self._times else self.calendar.end
        return self._times[self.index]

    @property
    def next(self) -> datetime:
        """When the following tick happens (the end of the run after the last tick)."""
        if self.index + 1 < len(self._times):
            return self._times[self.index + 1]
        return self.now + self.calendar.tick

    @property
    def starts_day(self) -> bool:
        """The current tick is the first of a simulated day: time to plan it."""
        if self.done:
            return False
        return self.index == 0 or self._times[self.index - 1].date() != self.now.date()

    @property
    def ends_day(self) -> bool:
        """The current tick is the last of a simulated day: time to sum it up."""
        if self.done:
            return False
        return self.index + 1 >= len(self._times) or self.next.date() != self.now.date()

    def advance(self) -> None:
        self.index += 1
