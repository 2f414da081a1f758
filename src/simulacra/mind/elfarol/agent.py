"""The El Farol agent: each week one call, from the attendance the world shows it, to go to
the bar or stay home. Its prompt keeps nothing between weeks: the world shows what it
remembers. With `memory.mode: stream` it also writes each week's choice and the attendance it
was shown to a memory stream (given an importance, so a week still costs one call), which
interviews answer from.

Every request carries the agent's own seed, fixed by the run's seed and its id, so a seed
fixes a run. Every answer is logged as a `decision` with its raw text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from simulacra.core import Action, InterviewAnswer, Observation
from simulacra.llm import LanguageModel, Request
from simulacra.memory import MemoryStream
from simulacra.mind.ablation import Ablation
from simulacra.mind.context import MindContext
from simulacra.mind.decision import model_decision
from simulacra.mind.elfarol.prompts import FALLBACK, PURPOSE, BarChoice, Choice, Week, choose_prompt
from simulacra.mind.interview import interview
from simulacra.runlog import EventSink

DESCRIPTIONS = {Choice.GO: "go to the bar", Choice.STAY: "stay home"}
WEEK_IMPORTANCE = 3.0  # a routine choice, given rather than rated (as a commuter's episode)
INTERVIEW_SYSTEM = (
    "You simulate one of the townspeople who decide each Thursday whether to go to the bar "
    "El Farol. Do the task at the end of the message and reply only in JSON."
)


@dataclass(frozen=True)
class Townsperson:
    """Who an El Farol agent is, as interviews present it."""

    id: str
    agents: int
    seats: int

    @property
    def name(self) -> str:
        return f"Townsperson {self.id}"

    def summary(self) -> str:
        return (
            f"One of {self.agents} people who decide each Thursday whether to go to the bar "
            f"El Farol, which is enjoyable when at most {self.seats} go."
        )


class ElFarolAgent:
    def __init__(
        self,
        agent: str,
        model: LanguageModel,
        *,
        seed: int,
        sink: EventSink | None = None,
        memory: MemoryStream | None = None,
        identity: Townsperson | None = None,
    ) -> None:
        self.id = agent
        self.model = model
        self.seed = seed
        self.sink = sink
        self.memory = memory
        self.identity = identity or Townsperson(agent, 0, 0)

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
        if self.sink is not None:
            decided = model_decision(PURPOSE, value.choice.value, completion, step=week.week)
            self.sink.emit(decided, t=now, agent=self.id)
        if self.memory is not None:
            await self.memory.add("observation", _week_note(week, value), now, WEEK_IMPORTANCE)
        return Action(value.choice.value, DESCRIPTIONS[value.choice])

    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        if self.memory is None:
            raise ValueError(
                f"agent {self.id} keeps no memory stream (memory.mode bounded); interviews "
                "need memory.mode stream"
            )
        ctx = MindContext(
            self.identity,
            self.memory,
            self.model,
            Ablation.FULL,
            self.sink,
            self.seed,
            INTERVIEW_SYSTEM,
        )
        return await interview(ctx, question, now, choices, sources)

    def state(self) -> dict[str, Any]:
        return {}

    def restore(self, state: Mapping[str, Any]) -> None:
        pass


def _week_note(week: Week, answer: BarChoice) -> str:
    """What the agent remembers of a week: what it was shown and what it chose, and why."""
    seen = f"{week.history[-1]} of {week.agents} went last week" if week.history else "no week yet"
    crowded = (
        ""
        if not week.history
        else (" (crowded)" if week.history[-1] > week.seats else " (enjoyable)")
    )
    why = f": {answer.reason.strip()}" if answer.reason.strip() else ""
    return f"Week {week.week}: {seen}{crowded}; I chose to {DESCRIPTIONS[answer.choice]}{why}"
