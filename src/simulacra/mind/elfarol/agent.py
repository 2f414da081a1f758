"""The El Farol agent: each week one call, from the attendance the world shows it, to go to
the bar or stay home. It keeps nothing between weeks: the world shows what it remembers.

Every request carries the agent's own seed, fixed by the run's seed and its id, so a seed
fixes a run. Every answer is logged as a `decision` with its raw text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from simulacra.core import Action, Observation
from simulacra.llm import LanguageModel, Request
from simulacra.mind.elfarol.prompts import FALLBACK, PURPOSE, BarChoice, Choice, Week, choose_prompt
from simulacra.runlog import EventSink
from simulacra.runlog.events import Decided

DESCRIPTIONS = {Choice.GO: "go to the bar", Choice.STAY: "stay home"}


class ElFarolAgent:
    def __init__(
        self, agent: str, model: LanguageModel, *, seed: int, events: EventSink | None = None
    ) -> None:
        self.id = agent
        self.model = model
        self.seed = seed
        self.events = events

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        if phase != "choose":
            return None
        week = Week.of(observation.facts)
        request = Request(
            messages=choose_prompt(week),
            output=BarChoice,
            fallback=FALLBACK,
            seed=self.seed,
            purpose=PURPOSE,
            agent=self.id,
        )
        completion = await self.model.complete(request)
        value = completion.value
        assert isinstance(value, BarChoice)  # a structured request carries a value or the fallback
        if self.events is not None:
            decided = Decided(
                purpose=PURPOSE,
                choice=value.choice.value,
                raw=completion.text,
                parsed=value.model_dump(mode="json"),
                fallback=completion.fallback,
                error=completion.error,
                step=week.week,
            )
            self.events.emit(decided, t=now, agent=self.id)
        return Action(value.choice.value, DESCRIPTIONS[value.choice])

    def state(self) -> dict[str, Any]:
        return {}

    def restore(self, state: Mapping[str, Any]) -> None:
        pass
