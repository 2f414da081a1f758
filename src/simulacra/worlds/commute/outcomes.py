"""Trips, their outcomes, and the punctuality table (the source's Table 5).

Every time is in minutes since midnight of the simulated day. A trip that has not reached its
destination when the day's window closes is incomplete: it has no arrival, and the time it
spent walking, waiting or riding until the close is still reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from simulacra.core.times import format_hhmm

Mode = Literal["bus", "taxi", "walk"]
MODES: tuple[Mode, ...] = ("bus", "taxi", "walk")
Punctuality = Literal["early", "on_time", "late", "incomplete"]


@dataclass(frozen=True)
class Trip:
    """One planned journey handed to an executor."""

    agent: str
    mode: Mode
    departure_min: float
    origin: str
    destination: str
    deadline_min: float


@dataclass(frozen=True)
class TripOutcome:
    """What happened to one trip on one day."""

    agent: str
    day: int
    mode: Mode
    departure_min: float
    deadline_min: float
    distance_km: float
    walk_min: float
    wait_min: float
    in_vehicle_min: float
    arrival_min: float | None
    cost_eur: float
    punctuality: Punctuality
    note: str = ""
    # Scored by the world from the traveller's priorities (satisfaction.py); None unscored.
    satisfaction: float | None = None
    satisfaction_parts: dict[str, float] | None = field(default=None, compare=False)

    @property
    def completed(self) -> bool:
        return self.arrival_min is not None

    @property
    def lateness_min(self) -> float | None:
        """Arrival minus deadline: negative when early, None when incomplete."""
        return None if self.arrival_min is None else self.arrival_min - self.deadline_min

    def describe(self) -> str:
        """One sentence for a prompt or a log."""
        head = f"{self.mode} departing {format_hhmm(self.departure_min)}"
        if self.arrival_min is None:
            return (
                f"{head}: did not arrive before the day ended "
                f"(waited {self.wait_min:.0f} min){_note(self.note)}{self._satisfied()}"
            )
        lateness = self.arrival_min - self.deadline_min
        when = f"{-lateness:.0f} min early" if lateness < 0 else f"{lateness:.0f} min late"
        if self.punctuality == "on_time":
            when = "on time"
        return (
            f"{head}: arrived {format_hhmm(self.arrival_min)} ({when}), waited "
            f"{self.wait_min:.0f} min, rode {self.in_vehicle_min:.0f} min, walked "
            f"{self.walk_min:.0f} min, cost {self.cost_eur:.2f} EUR{_note(self.note)}"
            f"{self._satisfied()}"
        )

    def _satisfied(self) -> str:
        if self.satisfaction is None:
            return ""
        shown = ", ".join(f"{k} {v:.2f}" for k, v in (self.satisfaction_parts or {}).items())
        return f"; satisfaction {self.satisfaction:.2f} of 1 ({shown})"


def _note(note: str) -> str:
    return f"; {note}" if note else ""


def classify(arrival_min: float | None, deadline_min: float, window_min: float) -> Punctuality:
    """Early before `deadline - window`, on time within it, late after the deadline."""
    if arrival_min is None:
        return "incomplete"
    if arrival_min > deadline_min:
        return "late"
    if arrival_min >= deadline_min - window_min:
        return "on_time"
    return "early"


@dataclass(frozen=True)
class PunctualitySummary:
    """Percentages of trips; early + on_time + late + incomplete = 100."""

    trips: int
    early: float
    on_time: float
    late: float
    incomplete: float

    @property
    def completion(self) -> float:
        return 100.0 - self.incomplete if self.trips else 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "trips": float(self.trips),
            "early": self.early,
            "late": self.late,
            "on_time": self.on_time,
            "incomplete": self.incomplete,
            "completion": self.completion,
        }


def summarize(outcomes: Iterable[TripOutcome]) -> PunctualitySummary:
    counts: dict[Punctuality, int] = {"early": 0, "on_time": 0, "late": 0, "incomplete": 0}
    for outcome in outcomes:
        counts[outcome.punctuality] += 1
    total = sum(counts.values())

    def pct(key: Punctuality) -> float:
        return 100.0 * counts[key] / total if total else 0.0

    return PunctualitySummary(total, pct("early"), pct("on_time"), pct("late"), pct("incomplete"))
