"""The cognitive commuter (source 4.2): state a_t = (I, M^s, M^l, p_t, E_t) and its four steps.

- `plan_week`: Plan = LLM_weekly(I, M^l), "commute.weekly"; fallback RandomPlan(I).
- `reflect`: r = LLM_reflect(p, s), appended to short-term memory, "commute.reflect".
- `replan`: p_t = LLM_daily(I, M^s, p_t^init, E_t), "commute.daily"; fallback p_t^init.
- `abstract`: Patterns = LLM_abstract(M^s) into long-term memory, "commute.abstract"; then
  short-term memory is cleared.

The ablation variants switch steps off: A1 keeps only the weekly plan (no memory at all), B1
adds reflection and daily re-planning (short-term memory), Full adds abstraction.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import BaseModel

from simulacra.commuter import prompts
from simulacra.commuter.memory import Episode, LongTermMemory, Pattern, ShortTermMemory
from simulacra.commuter.plans import DayPlan, PlanModels, WeeklyPlan, random_week
from simulacra.llm import Completion, LanguageModel, Message, Request
from simulacra.worlds.commute import Commuter, Mode, Trip, TripOutcome, parse_hhmm

Variant = Literal["A1", "B1", "Full"]
VARIANTS: tuple[Variant, ...] = ("A1", "B1", "Full")


@dataclass(frozen=True)
class Faculties:
    """Which steps of the loop a variant runs."""

    short_term: bool
    long_term: bool

    @classmethod
    def of(cls, variant: Variant) -> Faculties:
        return {
            "A1": cls(False, False),
            "B1": cls(True, False),
            "Full": cls(True, True),
        }[variant]


def stable_seed(*parts: object) -> int:
    """A seed from the parts that does not change between processes (unlike hash())."""
    return zlib.crc32("|".join(str(p) for p in parts).encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class Decision:
    """One model-backed step: what it produced and whether the fallback was used."""

    purpose: str
    value: BaseModel
    fallback: bool
    raw: str
    error: str | None


class CommuterAgent:
    def __init__(self, person: Commuter, models: PlanModels, variant: Variant, seed: int) -> None:
        self.person = person
        self.id = person.id
        self.profile = person.profile
        self.models = models
        self.variant = variant
        self.faculties = Faculties.of(variant)
        self.seed = seed
        self.identity = prompts.render_identity(person.profile, models.rules)
        self.stm = ShortTermMemory()
        self.ltm = LongTermMemory()
        self.week: tuple[DayPlan, ...] = ()
        self.plan: DayPlan | None = None
        self.fallbacks: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    async def _ask(
        self,
        model: LanguageModel,
        purpose: str,
        messages: Sequence[Message],
        output: type[BaseModel],
        fallback: BaseModel,
        *parts: object,
    ) -> Decision:
        request = Request(
            messages=messages,
            output=output,
            fallback=fallback,
            purpose=purpose,
            agent=self.id,
            seed=stable_seed(self.seed, self.id, purpose, *parts),
        )
        completion: Completion = await model.complete(request)
        self.calls[purpose] += 1
        if completion.fallback:
            self.fallbacks[purpose] += 1
        value = completion.value if completion.value is not None else fallback
        return Decision(purpose, value, completion.fallback, completion.text, completion.error)

    async def plan_week(self, model: LanguageModel, week: int) -> Decision:
        """The weekly plan from identity and long-term memory (empty unless Full)."""
        rng = random.Random(stable_seed(self.seed, self.id, "random_week", week))
        fallback = random_week(self.models, self.profile, rng)
        ltm = self.ltm.render() if self.faculties.long_term else "(none)"
        decision = await self._ask(
            model,
            "commute.weekly",
            prompts.weekly_messages(self.identity, ltm),
            self.models.week,
            fallback,
            week,
        )
        assert isinstance(decision.value, WeeklyPlan)
        self.week = decision.value.days
        return decision

    def initial_plan(self, weekday: int) -> DayPlan:
        return self.week[weekday % len(self.week)]

    async def reflect(self, model: LanguageModel, day: int, outcome: TripOutcome) -> Decision:
        """Judge a day's plan and outcome; the episode joins short-term memory."""
        assert self.plan is not None, "reflect() needs a plan that was executed"
        facts = outcome.describe()
        decision = await self._ask(
            model,
            "commute.reflect",
            prompts.reflect_messages(self.identity, self.plan, facts),
            prompts.Reflection,
            prompts.reflection_fallback(facts),
            day,
        )
        assert isinstance(decision.value, prompts.Reflection)
        self.stm.add(Episode(day, self.plan, outcome, decision.value.summary))
        return decision

    async def replan(
        self, model: LanguageModel, day: int, weekday: int, environment: str
    ) -> Decision:
        """Keep or change today's initial plan given this week's episodes."""
        initial = self.initial_plan(weekday)
        decision = await self._ask(
            model,
            "commute.daily",
            prompts.daily_messages(self.identity, self.stm.render(), weekday, environment, initial),
            self.models.day,
            initial,
            day,
        )
        assert isinstance(decision.value, DayPlan)
        self.plan = decision.value
        return decision

    def keep_initial(self, weekday: int) -> DayPlan:
        """A1: no re-planning, the weekly plan is executed as is."""
        self.plan = self.initial_plan(weekday)
        return self.plan

    async def abstract(self, model: LanguageModel, week: int) -> Decision:
        """Summarise the week into long-term memory, then clear short-term memory."""
        stm = self.stm.render()
        decision = await self._ask(
            model,
            "commute.abstract",
            prompts.abstract_messages(self.identity, stm),
            prompts.Patterns,
            prompts.patterns_fallback(stm),
            week,
        )
        assert isinstance(decision.value, prompts.Patterns)
        self.ltm.add(Pattern(week, decision.value.pattern))
        self.stm.clear()
        return decision

    def end_week(self) -> None:
        """B1 and A1: short-term memory is cleared with nothing consolidated."""
        self.stm.clear()

    def trip(self) -> Trip:
        assert self.plan is not None, "trip() needs today's plan"
        return Trip(
            agent=self.id,
            mode=cast(Mode, self.plan.mode),  # validated against the allowed modes
            departure_min=self.plan.departure_min,
            origin=self.profile.home,
            destination=self.profile.destination,
            deadline_min=parse_hhmm(self.profile.deadline),
        )
