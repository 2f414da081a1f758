"""A rule-based stand-in for the model: Arthur's inductive agents, for tests and sweeps.

Each agent holds a bag of three predictors drawn from its request seed (fixed per agent and
run). Every week it reads the attendance the prompt shows, trusts the predictor that would
have erred least over those weeks, and goes when that one forecasts room at the bar. It reads
only what the prompt shows. It is a fixture with Arthur's behaviour, not a model of people.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.elfarol.prompts import PURPOSE, BarChoice, Choice

BAG = 3  # predictors per agent

_PEOPLE = re.compile(r"one of (?P<agents>\d+) people")
_SEATS = re.compile(r"at most (?P<seats>\d+) people go")
_WEEK = re.compile(r"^- (?P<ago>\d+) weeks? ago: (?P<went>\d+) went", re.MULTILINE)


def _round(x: float) -> int:
    return math.floor(x + 0.5)


def _mean(ys: Sequence[int]) -> int:
    return _round(sum(ys) / len(ys))


def _trend(ys: Sequence[int], agents: int) -> int:
    """The least-squares line through `ys`, one week on, kept within 0..agents."""
    n = len(ys)
    if n < 2:
        return ys[-1]
    mean_x, mean_y = (n - 1) / 2, sum(ys) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(ys)) / sum(
        (x - mean_x) ** 2 for x in range(n)
    )
    return min(max(_round(mean_y + slope * (n - mean_x)), 0), agents)


@dataclass(frozen=True)
class Predictor:
    """A forecast of this week's attendance from past weeks (oldest first, at least one)."""

    name: str
    forecast: Callable[[Sequence[int], int], int]

    def error(self, history: Sequence[int], agents: int) -> int:
        """How far off it would have been over `history`, each week from the weeks before it."""
        return sum(
            abs(self.forecast(history[:t], agents) - history[t]) for t in range(1, len(history))
        )


def _same_as(weeks: int) -> Predictor:
    name = "same as last week" if weeks == 1 else f"same as {weeks} weeks ago"  # a cycle detector
    return Predictor(name, lambda h, n: h[-weeks] if len(h) >= weeks else h[0])


def _mean_of(weeks: int) -> Predictor:
    return Predictor(f"mean of the last {weeks} weeks", lambda h, n: _mean(h[-weeks:]))


def _trend_of(weeks: int) -> Predictor:
    return Predictor(f"trend of the last {weeks} weeks", lambda h, n: _trend(h[-weeks:], n))


# Arthur's families (1994), each over a range of weeks, scaled from 100 agents to any number.
PREDICTORS = (
    *(_same_as(k) for k in range(1, 6)),
    *(_mean_of(k) for k in range(2, 9)),
    *(_trend_of(k) for k in range(3, 9)),
    Predictor("mirror of last week around half", lambda h, n: n - h[-1]),
    Predictor("mirror of the 4-week mean around half", lambda h, n: n - _mean(h[-4:])),
)


def bag_of(seed: int) -> tuple[Predictor, ...]:
    """The predictors an agent holds, fixed by its request seed."""
    return tuple(random.Random(seed).sample(PREDICTORS, BAG))


def choose_by_predictors(history: Sequence[int], agents: int, seats: int, seed: int) -> BarChoice:
    """Go when the predictor with the least error forecasts at most `seats`; with no history
    yet, an agent guesses the attendance from its seed."""
    if not history:
        guess = random.Random(seed).randint(0, agents)
        choice = Choice.GO if guess <= seats else Choice.STAY
        return BarChoice(choice=choice, reason=f"No weeks to go by; I guess {guess} will go.")
    best = min(bag_of(seed), key=lambda p: p.error(history, agents))  # ties: the first in the bag
    forecast = best.forecast(history, agents)
    choice = Choice.GO if forecast <= seats else Choice.STAY
    return BarChoice(choice=choice, reason=f"{best.name.capitalize()}: {forecast} will go.")


def _choose(request: Request) -> BarChoice:
    system, user = request.messages[0].text, request.messages[-1].text
    people, seats = _PEOPLE.search(system), _SEATS.search(system)
    if people is None or seats is None:
        raise ValueError("not an El Farol prompt: it names no number of people or seats")
    history = [int(m["went"]) for m in _WEEK.finditer(user)]
    return choose_by_predictors(history, int(people["agents"]), int(seats["seats"]), request.seed)


def script_elfarol(model: ScriptedModel) -> ScriptedModel:
    """Register Arthur's predictors for "elfarol.choose" on `model`."""
    model.on(PURPOSE, _choose)
    return model
