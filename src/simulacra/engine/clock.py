"""Simulated time: a calendar of ticks between a start and an end, optionally only waking hours
or only working days, and the clock that walks it."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from simulacra.core import Tick

_SEARCH_LIMIT = timedelta(days=3653)


@dataclass(frozen=True)
class Calendar:
    """Ticks every `tick` from `start` until `end`; with `wake`/`sleep` set, nights are
    skipped, and with `weekdays` set, Saturdays and Sundays."""

    start: datetime
    end: datetime
    tick: timedelta = timedelta(minutes=10)
    wake: time | None = None
    sleep: time | None = None
    weekdays: bool = False

    @classmethod
    def counting(
        cls,
        start: datetime,
        ticks: int,
        tick: timedelta,
        wake: time | None = None,
        sleep: time | None = None,
        weekdays: bool = False,
    ) -> Calendar:
        """The calendar of exactly `ticks` ticks from `start`."""
        if ticks < 1:
            raise ValueError(f"a run needs at least one tick, not {ticks}")
        if tick <= timedelta(0):
            raise ValueError(f"a tick must be positive, not {tick}")
        probe = cls(start, start + tick, tick, wake, sleep, weekdays)
        t, found = start, 0
        while t - start < _SEARCH_LIMIT:
            if probe.awake(t):
                found += 1
                if found == ticks:
                    return cls(start, t + tick, tick, wake, sleep, weekdays)
            t += tick
        raise ValueError(
            f"{ticks} ticks of {tick} from {start} do not fit in ten years of waking hours; "
            "check wake and sleep"
        )

    def __post_init__(self) -> None:
        if self.tick <= timedelta(0):
            raise ValueError(f"a tick must be positive, not {self.tick}")
        if self.end <= self.start:
            raise ValueError(f"the schedule ends ({self.end}) before it starts ({self.start})")

    def awake(self, t: datetime) -> bool:
        if self.weekdays and t.weekday() >= 5:
            return False
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

    @property
    def tick(self) -> Tick:
        return Tick(
            step=self.index + 1,
            now=self.now,
            next=self.next,
            length=self.calendar.tick,
            starts_day=self.starts_day,
            ends_day=self.ends_day,
            last=self.index + 1 >= len(self._times),
        )

    def tick_at(self, index: int) -> Tick:
        """The tick `index` ticks from the start, without moving the clock (to look ahead)."""
        there = copy.copy(self)
        there.index = index
        return there.tick

    def advance(self) -> None:
        self.index += 1
