"""The cognitive commuter (source 4.2): state a_t = (I, M^s, M^l, p_t, E_t) and its four steps.

- `plan_week`: Plan = LLM_weekly(I, M^l), "commute.weekly"; fallback RandomPlan(I).
- `reflect`: r = LLM_reflect(p, s), an episode of short-term memory, "commute.reflect".
- `replan`: p_t = LLM_daily(I, M^s, p_t^init, E_t), "commute.daily"; fallback p_t^init.
- `abstract`: Patterns = LLM_abstract(M^s) into long-term memory, "commute.abstract"; then
  short-term memory is cleared.
- `merge`: every `merge_every` weeks (4: the source's monthly horizon, section 4.3), the weeks'
  patterns are merged into one, "commute.merge"; prompts then show the merged lesson in place
  of the weeks it merged.

The ablations switch steps off: A1 keeps only the weekly plan (no memory at all), B1
adds reflection and daily re-planning (short-term memory), Full adds abstraction.

Both memories live in the agent's memory stream: episodes (kind `episode`) and the patterns
consolidated from them (kind `pattern`, citing the week's episodes; a merged pattern cites the
weekly ones). The prompts see this week's episodes and the latest four lessons. An episode
holds the day's outcome s_t with its satisfaction, scored by the world from the commuter's
priorities, which the reflection reads.

The engine drives it through `decide`: in the `plan` phase of each working day (the weekly
plan on a Monday, then yesterday's reflection and today's re-plan) it returns today's trip;
in the `reflect` phase at the week's end it reflects on the last day and abstracts the week.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core import Action, InterviewAnswer, Observation, crc_seed
from simulacra.llm import Completion, LanguageModel, Message, Request
from simulacra.memory import MemoryStream, consolidate, merge
from simulacra.mind.ablation import Ablation
from simulacra.mind.commuter import prompts
from simulacra.mind.commuter.plans import (
    DayPlan,
    PlanModels,
    WeeklyPlan,
    random_week,
    trip_action,
)
from simulacra.mind.commuter.profiles import Commuter
from simulacra.mind.context import MindContext
from simulacra.mind.decision import model_decision
from simulacra.mind.interview import interview
from simulacra.runlog import EventSink
from simulacra.runlog.events import Decided

Variant = Literal["A1", "B1", "Full"]
VARIANTS: tuple[Variant, ...] = ("A1", "B1", "Full")
EPISODE = "episode"
# Given, not rated: a commuter's memories cost no importance calls.
EPISODE_IMPORTANCE, PATTERN_IMPORTANCE, MERGED_IMPORTANCE = 3.0, 6.0, 8.0
ANNOUNCED_IMPORTANCE = 7.0  # news that may change every plan of the week
LONG_TERM_SHOWN = 4
MERGE_EVERY_WEEKS = 4  # the source's "monthly": four working weeks


class CommuterOptions(BaseModel):
    """The cognitive commuter's settings (`agents.options.commuter`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    merge_every: int = Field(
        default=MERGE_EVERY_WEEKS,
        ge=0,
        description="weeks between merges of the weekly lessons (Full only); 0: never",
    )
    show_expectation: bool = Field(
        default=False,
        description="tell the commuter its profile's usual modes (Table 4's Expectation, what "
        "the study measures deviation from); the source does not",
    )


@dataclass(frozen=True)
class Faculties:
    """Which steps of the loop an ablation runs."""

    short_term: bool
    long_term: bool

    @classmethod
    def of(cls, ablation: str) -> Faculties:
        return {
            "A1": cls(False, False),
            "B1": cls(True, False),
            "Full": cls(True, True),
        }[ablation]


@dataclass(frozen=True)
class CommuterIdentity:
    """Who a commuter is, as interviews present it."""

    id: str
    label: str
    identity: str

    @property
    def name(self) -> str:
        return f"{self.label} {self.id}"

    def summary(self) -> str:
        return self.identity


class CommuterAgent:
    def __init__(
        self,
        person: Commuter,
        models: PlanModels,
        ablation: str,
        seed: int,
        model: LanguageModel,
        memory: MemoryStream,
        sink: EventSink | None = None,
        merge_every: int = MERGE_EVERY_WEEKS,
        show_expectation: bool = False,
    ) -> None:
        self.id = person.id
        self.commuter = person
        self.profile_name = person.profile_name
        self.profile = person.profile
        self.models = models
        self.ablation = ablation
        self.faculties = Faculties.of(ablation)
        self.seed = seed
        self.model = model
        self.memory = memory
        self.sink = sink
        self.merge_every = merge_every
        self.identity = prompts.render_identity(person, models.rules, show_expectation)
        self.week: tuple[DayPlan, ...] = ()
        self.plan: DayPlan | None = None
        self.plan_fallback = False
        self.replanned = False
        self.episodes: list[tuple[str, str]] = []  # this week's (record id, text)
        # Long-term memory as prompts show it: merged lessons, then the weeks since the last
        # merge as (record id, text).
        self.merged: list[str] = []
        self.patterns: list[tuple[str, str]] = []

    # --- the engine's phases ------------------------------------------------------------

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        facts = observation.facts
        day, weekday, week = int(facts["day"]), int(facts["weekday"]), int(facts["week"])
        last = facts.get("last_trip")
        if phase == "plan":
            if weekday == 0:
                self.plan_fallback = (await self.plan_week(week, now)).fallback
            if self.faculties.short_term and weekday > 0 and last is not None:
                await self.reflect(day - 1, last, now)
            if facts.get("announcement"):  # after yesterday's episode, before today's plan
                await self.hear(day, str(facts["announcement"]), now)
            if self.faculties.short_term:
                decision = await self.replan(day, weekday, str(facts["environment"]), now)
                self.replanned, self.plan_fallback = True, decision.fallback
            else:
                self.plan = self.initial_plan(weekday)
                self.replanned = False
            return self._trip()
        if phase == "reflect":
            if self.faculties.long_term and last is not None:
                await self.reflect(day, last, now)
                await self.abstract(week, now)
                if self.merge_every and week % self.merge_every == 0:
                    await self.merge(week, now)
            self.episodes = []  # short-term memory is cleared at the cycle's end
        return None

    def _trip(self) -> Action:
        assert self.plan is not None
        return trip_action(
            self.commuter,
            self.plan,
            replanned=self.replanned,
            plan_fallback=self.plan_fallback,
        )

    # --- the four steps -----------------------------------------------------------------

    async def plan_week(self, week: int, now: datetime) -> ModelStep:
        """The weekly plan from identity and long-term memory (empty unless Full)."""
        rng = random.Random(crc_seed(self.seed, self.id, "random_week", week))
        fallback = random_week(self.models, self.profile, rng)
        decision = await self._ask(
            "commute.weekly",
            prompts.weekly_messages(self.identity, self._long_term()),
            self.models.week,
            fallback,
            now,
            week=week,
        )
        assert isinstance(decision.value, WeeklyPlan)
        self.week = decision.value.days
        return decision

    async def hear(self, day: int, text: str, now: datetime) -> None:
        """An announcement joins short-term memory, as a day's episode does: today's re-plan
        and the rest of the week's see it (and the week's lesson cites it)."""
        said = f"Day {day}: announced: {text}"
        record = await self.memory.add(EPISODE, said, now, ANNOUNCED_IMPORTANCE, meta={"day": day})
        self.episodes.append((record.id, said))

    def initial_plan(self, weekday: int) -> DayPlan:
        return self.week[weekday % len(self.week)]

    async def reflect(self, day: int, trip: Mapping[str, Any], now: datetime) -> ModelStep:
        """Judge a day's plan and outcome; the episode joins short-term memory."""
        assert self.plan is not None, "reflect() needs a plan that was executed"
        facts = str(trip["describe"])
        decision = await self._ask(
            "commute.reflect",
            prompts.reflect_messages(self.identity, day, self.plan, facts),
            prompts.Reflection,
            prompts.reflection_fallback(facts),
            now,
            day=day,
        )
        assert isinstance(decision.value, prompts.Reflection)
        text = f"Day {day}: {facts}. Reflection: {decision.value.summary}"
        meta = {"day": day, "plan": self.plan.model_dump()}
        record = await self.memory.add(EPISODE, text, now, EPISODE_IMPORTANCE, meta=meta)
        self.episodes.append((record.id, text))
        return decision

    async def replan(self, day: int, weekday: int, environment: str, now: datetime) -> ModelStep:
        """Keep or change today's initial plan given this week's episodes."""
        initial = self.initial_plan(weekday)
        decision = await self._ask(
            "commute.daily",
            prompts.daily_messages(
                self.identity, self._short_term(), weekday, environment, initial
            ),
            self.models.day,
            initial,
            now,
            day=day,
        )
        assert isinstance(decision.value, DayPlan)
        self.plan = decision.value
        return decision

    async def abstract(self, week: int, now: datetime) -> ModelStep:
        """Summarise the week into long-term memory, citing its episodes."""
        stm = self._short_term()
        messages = prompts.abstract_messages(self.identity, stm)
        decision, pattern = await self._lesson(
            "commute.abstract", messages, prompts.patterns_fallback(stm), now, week
        )
        lesson = f"Week {week}: {pattern}"
        evidence = [record_id for record_id, _ in self.episodes]
        record = await consolidate(
            self.memory, evidence, lesson, now, importance=PATTERN_IMPORTANCE
        )
        self.patterns.append((record.id, lesson))
        return decision

    async def merge(self, week: int, now: datetime) -> ModelStep | None:
        """Merge the weekly lessons since the last merge into one (none: nothing to do)."""
        if not self.patterns:
            return None
        lessons = "\n".join(text for _, text in self.patterns)
        messages = prompts.merge_messages(self.identity, lessons)
        decision, pattern = await self._lesson(
            "commute.merge", messages, prompts.merge_fallback(lessons), now, week
        )
        first = self.patterns[0][1].split(":", 1)[0].removeprefix("Week ")
        lesson = f"Weeks {first}-{week}: {pattern}"
        evidence = [record_id for record_id, _ in self.patterns]
        await merge(self.memory, evidence, lesson, now, importance=MERGED_IMPORTANCE)
        self.merged.append(lesson)
        self.patterns = []
        return decision

    async def _lesson(
        self,
        purpose: str,
        messages: Sequence[Message],
        fallback: prompts.Patterns,
        now: datetime,
        week: int,
    ) -> tuple[ModelStep, str]:
        decision = await self._ask(purpose, messages, prompts.Patterns, fallback, now, week=week)
        assert isinstance(decision.value, prompts.Patterns)
        return decision, decision.value.pattern

    def _short_term(self) -> str:
        return "\n".join(text for _, text in self.episodes) or "(nothing yet this week)"

    def _long_term(self) -> str:
        if not self.faculties.long_term:
            return "(none)"
        lessons = [*self.merged, *(text for _, text in self.patterns)]
        return "\n".join(lessons[-LONG_TERM_SHOWN:]) or "(no past weeks)"

    async def _ask(
        self,
        purpose: str,
        messages: Sequence[Message],
        output: type[BaseModel],
        fallback: BaseModel,
        now: datetime,
        **about: int,
    ) -> ModelStep:
        """One model call; `about` names the day or week it concerns (logged with it)."""
        request = Request(
            messages=messages,
            output=output,
            fallback=fallback,
            max_tokens=prompts.MAX_TOKENS[purpose],
            purpose=purpose,
            agent=self.id,
            seed=crc_seed(self.seed, self.id, purpose, *about.values()),
        )
        completion = await self.model.complete(request)
        value = completion.value if completion.value is not None else fallback
        decision = ModelStep(purpose, value, completion, about)
        if self.sink is not None:
            self.sink.emit(decision.event(), t=now, agent=self.id)
        return decision

    # --- interviews and checkpoints -------------------------------------------------------

    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        who = CommuterIdentity(self.id, self.profile.label, self.identity)
        ctx = MindContext(
            who, self.memory, self.model, Ablation.FULL, self.sink, self.seed, prompts.SYSTEM
        )
        return await interview(ctx, question, now, choices, sources)

    def state(self) -> dict[str, Any]:
        return {
            "week": [p.model_dump() for p in self.week],
            "plan": self.plan.model_dump() if self.plan else None,
            "plan_fallback": self.plan_fallback,
            "replanned": self.replanned,
            "episodes": [list(e) for e in self.episodes],
            "merged": list(self.merged),
            "patterns": [list(p) for p in self.patterns],
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.week = tuple(self.models.day.model_validate(p) for p in state["week"])
        self.plan = None if state["plan"] is None else self.models.day.model_validate(state["plan"])
        self.plan_fallback = bool(state["plan_fallback"])
        self.replanned = bool(state["replanned"])
        self.episodes = [(str(i), str(t)) for i, t in state["episodes"]]
        self.merged = [str(p) for p in state["merged"]]
        self.patterns = [(str(i), str(t)) for i, t in state["patterns"]]


@dataclass(frozen=True)
class ModelStep:
    """One model-backed step: what it produced (the fallback where the model gave nothing
    readable) and the call that produced it."""

    purpose: str
    value: BaseModel
    completion: Completion
    about: Mapping[str, int] = field(default_factory=dict)  # the day or week it concerns

    @property
    def fallback(self) -> bool:
        return self.completion.fallback

    def event(self) -> Decided:
        parsed = self.value.model_dump(mode="json")  # the fallback's, where it stood in
        choice = _choice(self.value)
        return model_decision(
            self.purpose, choice, self.completion, parsed=parsed, extra=self.about
        )


def _choice(value: BaseModel) -> str:
    if isinstance(value, DayPlan):
        return value.describe()
    if isinstance(value, WeeklyPlan):
        return "; ".join(day.describe() for day in value.days)
    if isinstance(value, prompts.Reflection):
        return value.summary
    if isinstance(value, prompts.Patterns):
        return value.pattern
    return value.model_dump_json()
