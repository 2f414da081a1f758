"""A rule-following stand-in for a language model, for tests, benchmarks and offline demos.

`script_commuters(model)` registers responders for the five commute purposes on a scripted
model. They read only the prompt, exactly as a language model would: the identity (age,
income, weights, flexibility, usual departure, the trip and the allowed modes), the week's
reflections, the lessons in long-term memory; never Table 4's expectation, even where a
scenario shows it, nor the world's own outcome sentences in an episode (its memory is what it
wrote itself).

What it writes into memory states what happened, never what to do:

- a reflection states the day's trip: "Day 12: the taxi at 07:40 arrived 08:52, 7 min late;
  72 min door to door, 45 min walking and waiting, 13.90 EUR." (or that it did not arrive);
- a lesson states, per mode used that week, the days, the mean door-to-door time, walking and
  waiting and cost, and how often it was late (by up to how much) or did not arrive; a merge
  states the same over the weeks it merges.

Its plans decide from those facts by one policy, the commuter's own (`choice.py`, shared
with the logit model): what it believes of a mode is its first guess counted as one trip,
averaged with every remembered trip of the mode (time, walking and waiting, cost, and the
lateness risk: 1 late beyond its flexibility or not arrived, a quarter late within it); a
mode's disutility is its identity's weights over those beliefs, leaving at its usual time or
earlier when the believed time would not leave 5 minutes before the deadline.

- the weekly plan draws each day's mode with the logit probabilities of those disutilities
  (scale 4, seeded by the request) from the lessons it is shown; with none (A1, B1, Full's
  first week), from the first guesses alone;
- the daily re-plan keeps the plan unless a reflection of this week says today's planned mode
  did worse than first guessed (its disutility higher by more than `REGRET`); then it takes
  the mode of least disutility over what the week's reflections hold, at that mode's
  departure. With no reflection of the planned mode it keeps the plan.

So each variant plans from what it remembers: A1 from nothing, B1 from the week's reflections,
Full from those and the weeks' lessons. Ignoring its memory, each responder gives the
variant below it trip for trip.
"""

from __future__ import annotations

import math
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from simulacra.core import DayWindow, format_hhmm, parse_hhmm
from simulacra.llm import Request, ScriptedModel
from simulacra.mind.commuter.choice import (
    Belief,
    departure,
    disutility,
    first_guess,
    lateness_risk,
)
from simulacra.mind.commuter.profiles import PRIORITIES, Person

_ALLOWED = re.compile(r"Modes allowed: ([a-z, ]+)\.")
_WHO = re.compile(r"I am an? [^,]+, (\d+), (\w+):")
_INCOME = re.compile(r"income (\d+) EUR a month")
_WEIGHTS = re.compile(r"What matters to me: ([^.]*)\.")
_WEIGHT = re.compile(r"(\w+) (\d+)%")
_FLEXIBLE = re.compile(r"up to (\d+) min late does no harm")
_WINDOW = re.compile(r"Depart between (\d\d:\d\d) and (\d\d:\d\d)")
_DEADLINE = re.compile(r"Arrive by (\d\d:\d\d)")
_HABIT = re.compile(r"I usually leave at (\d\d:\d\d)")
_DISTANCE = re.compile(r"Trip: \S+ to \S+, ([\d.]+) km")
_DAY = re.compile(r"The plan of day (\d+):")
_PLANNED = re.compile(r"Planned for today: (bus|taxi|walk) at (\d\d:\d\d)")
# The world's outcome sentence (worlds/commute/outcomes.py, TripOutcome.describe).
_OUTCOME = re.compile(
    r"What happened: (bus|taxi|walk) departing (\d\d:\d\d): (?:arrived (\d\d:\d\d) "
    r"\((on time|\d+ min early|\d+ min late)\)|did not arrive)[^\n]*"
)
_WAITED = re.compile(r"waited (\d+) min")
_WALKED = re.compile(r"walked (\d+) min")
_COST = re.compile(r"cost ([\d.]+) EUR")
# What the reflections and lessons below write, read back.
_STATED = re.compile(
    r"Day (\d+): the (bus|taxi|walk) at (\d\d:\d\d) (?:arrived (\d\d:\d\d), (on time|\d+ min "
    r"(?:early|late))|did not arrive by \d\d:\d\d); (?:\d+ min door to door, )?(\d+) min walking "
    r"and waiting, ([\d.]+) EUR"
)
_SUMMED = re.compile(
    r"(Bus|Taxi|Walk) on days? ([\d, -]+): (\d+) min door to door, (\d+) walking and waiting, "
    r"([\d.]+) EUR(?:, late (once|\d+ times) \(up to (\d+) min\))?"
    r"(?:, not arrived (once|\d+ times))?"
)

# How sharply a plan prefers the better mode: the logit model's default scale.
_SCALE = 4.0
_MARGIN_MIN = 5.0
# How much worse than first guessed a remembered mode must have done for the daily re-plan to
# reconsider it: a disutility of 0.1, what ten more minutes of travel weigh to a commuter who
# gives time 30% of its weight (or a late arrival to one who gives punctuality 25%).
REGRET = 0.1
_EARLIEST, _LATEST = parse_hhmm("06:00"), parse_hhmm("11:55")


def _user(request: Request) -> str:
    return request.messages[-1].text


def _modes(pattern: re.Pattern[str], text: str) -> list[str]:
    found = pattern.search(text)
    return [m.strip() for m in found.group(1).split(",")] if found else []


def _clip(minutes: float) -> str:
    return format_hhmm(min(_LATEST, max(_EARLIEST, minutes)))


def _number(pattern: re.Pattern[str], text: str, default: float = 0.0) -> float:
    found = pattern.search(text)
    return float(found.group(1)) if found else default


def person_of(text: str) -> Person:
    """The commuter the prompt's identity block describes."""
    who, habit = _WHO.search(text), _HABIT.search(text)
    weights_text = _WEIGHTS.search(text)
    assert who and habit and weights_text, "the prompt lost its identity block"
    shares = {k: float(v) for k, v in _WEIGHT.findall(weights_text.group(1)) if k in PRIORITIES}
    total = sum(shares.values()) or 1.0
    return Person(
        age=int(who.group(1)),
        gender=who.group(2),
        income_eur=int(_number(_INCOME, text)),
        weights=tuple((k, shares.get(k, 0.0) / total) for k in PRIORITIES),
        flexibility_min=int(_number(_FLEXIBLE, text)),
        habit_min=parse_hhmm(habit.group(1)),
    )


# --- what memory holds ----------------------------------------------------------------------


@dataclass(frozen=True)
class Trip:
    """One remembered trip, as a reflection states it. `late_min` is None when it did not
    arrive, negative when early."""

    day: int
    mode: str
    departure_min: float
    minutes: float  # door to door; to the window's end when it did not arrive
    burden_min: float  # walking and waiting
    cost_eur: float
    late_min: float | None

    def stated(self, end_min: float) -> str:
        """The reflection's sentence."""
        head = f"Day {self.day}: the {self.mode} at {format_hhmm(self.departure_min)}"
        tail = f"{self.burden_min:.0f} min walking and waiting, {self.cost_eur:.2f} EUR."
        if self.late_min is None:
            return f"{head} did not arrive by {format_hhmm(end_min)}; {tail}"
        late = round(self.late_min)
        when = f"{late} min late" if late > 0 else f"{-late} min early" if late < 0 else "on time"
        arrived = format_hhmm(self.departure_min + self.minutes)
        return f"{head} arrived {arrived}, {when}; {self.minutes:.0f} min door to door, {tail}"


@dataclass(frozen=True)
class ModeSummary:
    """What a lesson states of one mode: its days, means, and how often it was late."""

    mode: str
    days: tuple[int, ...]
    minutes: float
    burden_min: float
    cost_eur: float
    late: int
    worst_late_min: float
    missed: int

    @classmethod
    def of(cls, mode: str, trips: Sequence[Trip]) -> ModeSummary:
        n = len(trips)
        late = [t.late_min for t in trips if t.late_min is not None and t.late_min > 0]
        return cls(
            mode,
            tuple(t.day for t in trips),
            sum(t.minutes for t in trips) / n,
            sum(t.burden_min for t in trips) / n,
            sum(t.cost_eur for t in trips) / n,
            len(late),
            max(late, default=0.0),
            sum(t.late_min is None for t in trips),
        )

    @classmethod
    def merged(cls, mode: str, parts: Sequence[ModeSummary]) -> ModeSummary:
        n = sum(len(p.days) for p in parts)

        def mean(values: Iterable[tuple[float, int]]) -> float:
            return sum(v * k for v, k in values) / n

        return cls(
            mode,
            tuple(sorted({d for p in parts for d in p.days})),
            mean((p.minutes, len(p.days)) for p in parts),
            mean((p.burden_min, len(p.days)) for p in parts),
            mean((p.cost_eur, len(p.days)) for p in parts),
            sum(p.late for p in parts),
            max(p.worst_late_min for p in parts),
            sum(p.missed for p in parts),
        )

    def stated(self) -> str:
        many = "days" if len(self.days) > 1 else "day"
        text = (
            f"{self.mode.capitalize()} on {many} {_ranges(self.days)}: {self.minutes:.0f} min "
            f"door to door, {self.burden_min:.0f} walking and waiting, {self.cost_eur:.2f} EUR"
        )
        if self.late:
            text += f", late {_times(self.late)} (up to {self.worst_late_min:.0f} min)"
        if self.missed:
            text += f", not arrived {_times(self.missed)}"
        return text

    def belief(self, flexibility_min: float) -> tuple[Belief, int]:
        """The summary as `len(days)` trips alike: a belief and its weight."""
        n = len(self.days)
        risk = (self.late * lateness_risk(self.worst_late_min, flexibility_min) + self.missed) / n
        return Belief(self.minutes, self.cost_eur, self.burden_min, risk), n


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _ranges(days: Sequence[int]) -> str:
    """1, 2, 3, 5 as "1-3, 5"."""
    out: list[str] = []
    start = prev = days[0]
    for day in [*days[1:], None]:
        if day is not None and day == prev + 1:
            prev = day
            continue
        out.append(f"{start}-{prev}" if prev > start else str(start))
        if day is not None:
            start = prev = day
    return ", ".join(out)


def _count(times: str) -> int:
    """ "once" or "3 times" as a number; nothing as 0."""
    return 1 if times == "once" else int(times.split()[0]) if times else 0


def _days(text: str) -> tuple[int, ...]:
    days: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        days += range(int(low), int(high or low) + 1)
    return tuple(days)


def _trip(
    situation: Situation,
    day: int,
    mode: str,
    left: str,
    arrived: str | None,
    burden: float,
    cost: float,
) -> Trip:
    start, end = parse_hhmm(left), situation.window.end_min
    if not arrived:
        return Trip(day, mode, start, end - start, burden, cost, None)
    at = parse_hhmm(arrived)
    return Trip(day, mode, start, at - start, burden, cost, at - situation.deadline_min)


def _remembered_trips(text: str, situation: Situation) -> list[Trip]:
    """The trips this week's reflections state."""
    return [
        _trip(situation, int(day), mode, left, arrived, float(burden), float(cost))
        for day, mode, left, arrived, _, burden, cost in _STATED.findall(text)
    ]


def _lessons(text: str) -> list[ModeSummary]:
    """Every mode summary of the lessons shown."""
    return [
        ModeSummary(
            mode.lower(),
            _days(days),
            float(minutes),
            float(burden),
            float(cost),
            _count(late),
            float(worst or 0),
            _count(missed),
        )
        for mode, days, minutes, burden, cost, late, worst, missed in _SUMMED.findall(text)
    ]


# --- the commuter's policy ------------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """What a plan is made against: who, how far, by when, within which window."""

    person: Person
    km: float
    deadline_min: float
    window: DayWindow
    modes: tuple[str, ...]

    @classmethod
    def read(cls, text: str) -> Situation:
        deadline, window = _DEADLINE.search(text), _WINDOW.search(text)
        assert deadline and window, "the prompt lost its deadline or window"
        return cls(
            person_of(text),
            _number(_DISTANCE, text),
            parse_hhmm(deadline.group(1)),
            DayWindow.of(window.group(1), window.group(2)),
            tuple(_modes(_ALLOWED, text)),
        )

    def belief(self, mode: str, memory: Iterable[tuple[Belief, int]]) -> Belief:
        """The first guess counted as one trip, averaged with the remembered ones."""
        parts = [(first_guess(mode, self.km), 1), *memory]
        n = sum(k for _, k in parts)

        def mean(field: Callable[[Belief], float]) -> float:
            return sum(field(b) * k for b, k in parts) / n

        return Belief(
            mean(lambda b: b.minutes),
            mean(lambda b: b.cost_eur),
            mean(lambda b: b.burden_min),
            mean(lambda b: b.risk),
        )

    def leave(self, belief: Belief) -> float:
        return departure(self.person, self.deadline_min, belief.minutes, _MARGIN_MIN, self.window)

    def cost(self, mode: str, belief: Belief) -> float:
        return disutility(self.person, mode, belief, self.leave(belief))


def _trip_beliefs(situation: Situation, trips: Sequence[Trip]) -> dict[str, Belief]:
    flexible = situation.person.flexibility_min
    memory: dict[str, list[tuple[Belief, int]]] = defaultdict(list)
    for t in trips:
        risk = lateness_risk(t.late_min, flexible)
        memory[t.mode].append((Belief(t.minutes, t.cost_eur, t.burden_min, risk), 1))
    return {m: situation.belief(m, memory[m]) for m in situation.modes}


def weekly(request: Request) -> dict[str, Any]:
    """Five days drawn from the logit probabilities of what the lessons shown say."""
    text = _user(request)
    situation = Situation.read(text)
    flexible = situation.person.flexibility_min
    memory: dict[str, list[tuple[Belief, int]]] = defaultdict(list)
    for summary in _lessons(text):
        memory[summary.mode].append(summary.belief(flexible))
    plans = {}
    for mode in situation.modes:
        belief = situation.belief(mode, memory[mode])
        plans[mode] = (situation.leave(belief), -_SCALE * situation.cost(mode, belief))
    top = max(v for _, v in plans.values())
    weights = [math.exp(v - top) for _, v in plans.values()]
    rng = random.Random(request.seed)
    days = []
    for _ in range(5):
        mode = rng.choices(list(plans), weights=weights)[0]
        days.append({"departure": _clip(plans[mode][0]), "mode": mode})
    return {"days": days}


def daily(request: Request) -> dict[str, Any]:
    """Keep the plan unless this week's reflections say its mode did worse than guessed."""
    text = _user(request)
    planned = _PLANNED.search(text)
    assert planned, "the daily prompt lost today's plan"
    mode, leave = planned.group(1), planned.group(2)
    situation = Situation.read(text)
    trips = _remembered_trips(text, situation)
    if not any(t.mode == mode for t in trips):
        return {"departure": leave, "mode": mode}
    beliefs = _trip_beliefs(situation, trips)
    guessed = situation.cost(mode, first_guess(mode, situation.km))
    if situation.cost(mode, beliefs[mode]) - guessed <= REGRET:
        return {"departure": leave, "mode": mode}
    best = min(situation.modes, key=lambda m: (situation.cost(m, beliefs[m]), m != mode))
    return {"departure": _clip(situation.leave(beliefs[best])), "mode": best}


def reflect(request: Request) -> dict[str, Any]:
    """The day's trip, stated."""
    text = _user(request)
    found, day = _OUTCOME.search(text), _DAY.search(text)
    assert found and day, "the reflection prompt lost its day or its outcome"
    mode, left, arrived, _ = found.groups()
    rest = found.group(0)
    burden = _number(_WAITED, rest) + _number(_WALKED, rest)
    situation = Situation.read(text)
    trip = _trip(situation, int(day.group(1)), mode, left, arrived, burden, _number(_COST, rest))
    return {"summary": trip.stated(situation.window.end_min)}


def abstract(request: Request) -> dict[str, Any]:
    """The week's trips, mode by mode."""
    text = _user(request)
    trips = _remembered_trips(text, Situation.read(text))
    if not trips:
        return {"pattern": "No trip of this week was reflected on."}
    by_mode: dict[str, list[Trip]] = defaultdict(list)
    for t in trips:
        by_mode[t.mode].append(t)
    return {"pattern": "; ".join(ModeSummary.of(m, ts).stated() for m, ts in by_mode.items()) + "."}


def merge(request: Request) -> dict[str, Any]:
    """The weeks' summaries, mode by mode."""
    by_mode: dict[str, list[ModeSummary]] = defaultdict(list)
    for summary in _lessons(_user(request)):
        by_mode[summary.mode].append(summary)
    if not by_mode:
        return {"pattern": "The weeks' lessons state no trip to merge."}
    parts = (ModeSummary.merged(m, ps).stated() for m, ps in by_mode.items())
    return {"pattern": "; ".join(parts) + "."}


def script_commuters(model: ScriptedModel) -> ScriptedModel:
    """Register the five commute responders on `model` and return it."""
    model.on("commute.weekly", weekly)
    model.on("commute.reflect", reflect)
    model.on("commute.daily", daily)
    model.on("commute.abstract", abstract)
    model.on("commute.merge", merge)
    return model
