"""What a scenario does to a run from outside, in any world: thoughts put into a mind, changes
made to the world, forced conversations; and the interviews that measure what agents know.

Each fires once, at the first tick at or after its time. Which ones have fired is part of a
checkpoint, so a resumed run neither repeats nor skips one (a live console's are read back
from the log's `console` events before the checkpoint restores that).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from simulacra.core import (
    Correctable,
    Intervenable,
    InterviewAnswer,
    Interviewee,
    Mind,
    Resolution,
    Thinker,
    Tick,
    World,
    mentions_all,
)
from simulacra.engine.sink import EventRouter
from simulacra.runlog.events import InterventionFired, Measured

InterventionType = Literal["thought", "event", "conversation", "correction"]


@dataclass(frozen=True)
class Intervention:
    """`thought`: `text` becomes the one agent's own thought. `event`: the world makes `change`
    (its fields are the world's own). `conversation`: the two agents talk about `text`.
    `correction`: `text` corrects a fact; each of `agents` (every agent when none are named)
    invalidates the memories that mention all of `contradicts` and remembers `text`.
    `importance`: the thought's or the correction's, or None to have it rated as any memory."""

    at: datetime
    type: InterventionType
    text: str
    agents: tuple[str, ...] = ()
    change: Mapping[str, Any] = field(default_factory=dict)
    importance: float | None = None
    contradicts: tuple[tuple[str, ...], ...] = ()


class AwareTest(Protocol):
    """How an interview is asked and judged: the choices and sources of a closed question put
    to an agent (both empty: the question is open), and whether its answer at a time counts
    as aware (the answer's `evidence` being the texts of what it saw or heard that it rests
    on)."""

    def asks(self, agent: str) -> tuple[tuple[str, ...], tuple[str, ...]]: ...

    def __call__(self, agent: str, answer: InterviewAnswer, now: datetime) -> bool: ...


@dataclass(frozen=True)
class InterviewPlan:
    """`question` put to every agent at each of `times`. An answer counts as aware when, for
    every group of words in `aware_when`, it and one of its evidence's texts contain at least
    one (whole words, any case), or as `aware` says where the caller gives that test (the run
    pipeline's knows who owns the fact and what each agent is called, and whether the
    question is closed)."""

    times: tuple[datetime, ...]
    question: str
    aware_when: tuple[tuple[str, ...], ...] = ()
    aware: AwareTest | None = None


class Host(Protocol):
    """What interventions and interviews need of the engine that fires them."""

    world: World
    minds: dict[str, Mind]
    router: EventRouter

    @property
    def tick(self) -> Tick: ...

    async def settle(self, resolution: Resolution, phase: str) -> None: ...


class Interventions:
    def __init__(
        self, items: Sequence[Intervention] = (), interviews: InterviewPlan | None = None
    ) -> None:
        self.items = tuple(items)
        self.interviews = interviews
        self.fired: list[int] = []
        self.asked: list[int] = []

    def add(self, item: Intervention) -> None:
        """One more, after those the scenario schedules (a live console's): it fires after
        them when due at the same time, as it would listed after them in the scenario."""
        self.items = (*self.items, item)

    def state(self) -> dict[str, Any]:
        return {"fired": list(self.fired), "asked": list(self.asked)}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.fired = list(state["fired"])
        self.asked = list(state["asked"])

    def due(self, now: datetime) -> bool:
        """Whether an intervention or an interview is due by `now` and not yet done."""
        if any(i not in self.fired and item.at <= now for i, item in enumerate(self.items)):
            return True
        times = self.interviews.times if self.interviews is not None else ()
        return any(i not in self.asked and moment <= now for i, moment in enumerate(times))

    async def fire_due(self, engine: Host, now: datetime) -> None:
        for i, item in enumerate(self.items):
            if i in self.fired or item.at > now:
                continue
            self.fired.append(i)
            await self._fire(engine, item, now)

    async def _fire(self, engine: Host, item: Intervention, now: datetime) -> None:
        target = item.agents[0] if len(item.agents) == 1 else None
        fired = InterventionFired(
            type=item.type,
            text=item.text,
            agents=list(item.agents) if item.type in ("conversation", "correction") else None,
            change=dict(item.change) if item.type == "event" else None,
            contradicts=[list(g) for g in item.contradicts] if item.contradicts else None,
        )
        engine.router.writer.emit(fired, t=now, agent=target)
        if item.type == "thought":
            mind = engine.minds[item.agents[0]]
            if not isinstance(mind, Thinker):
                raise TypeError(f"the mind of {mind.id} cannot take a thought")
            await engine.router.gather(
                [((mind.id,), lambda: mind.think(item.text, now, item.importance))]
            )
        elif item.type == "correction":
            await engine.router.gather(
                [((agent,), _corrector(m, item, now)) for agent, m in _hearers(engine, item)]
            )
        else:
            world = engine.world
            if not isinstance(world, Intervenable):  # validation refuses such a scenario
                raise ValueError(f"the world takes no {item.type} interventions")
            change = (
                {**item.change, "text": item.text}
                if item.type == "event"
                else {"conversation": list(item.agents), "topic": item.text}
            )
            await engine.settle(world.intervene(change, engine.tick), "intervention")

    async def interview_due(self, engine: Host, now: datetime) -> None:
        """Ask every agent the plan's question; log who is aware as a `metric` event."""
        plan = self.interviews
        if plan is None:
            return
        for i, moment in enumerate(plan.times):
            if i in self.asked or moment > now:
                continue
            self.asked.append(i)
            minds = [m for m in engine.minds.values() if isinstance(m, Interviewee)]
            test = plan.aware or WordsTest(plan.aware_when)
            answers = await engine.router.gather(
                [((m.id,), _asker(m, plan.question, now, *test.asks(m.id))) for m in minds]
            )
            if plan.aware_when:
                aware = [
                    m.id
                    for m, answer in zip(minds, answers, strict=True)
                    if test(m.id, answer, now)
                ]
                engine.router.writer.emit(
                    Measured(name="aware", value=len(aware), agents=aware), t=now
                )


@dataclass(frozen=True)
class WordsTest:
    """The open question's test by words alone: the answer and one of its evidence's texts
    hold a word of every group."""

    groups: Sequence[Sequence[str]]

    def asks(self, agent: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (), ()

    def __call__(self, agent: str, answer: InterviewAnswer, now: datetime) -> bool:
        said = mentions_all(answer.answer, self.groups)
        return said and any(mentions_all(e, self.groups) for e in answer.evidence)


def _asker(
    mind: Interviewee, question: str, now: datetime, choices: Sequence[str], sources: Sequence[str]
) -> Any:
    return lambda: mind.interview(question, now, choices, sources)


def _hearers(engine: Host, item: Intervention) -> list[tuple[str, Correctable]]:
    found: list[tuple[str, Correctable]] = []
    for agent in item.agents or tuple(engine.minds):
        mind = engine.minds[agent]
        if not isinstance(mind, Correctable):
            raise TypeError(f"the mind of {agent} keeps no memory to correct")
        found.append((agent, mind))
    return found


def _corrector(mind: Correctable, item: Intervention, now: datetime) -> Any:
    return lambda: mind.correct(item.text, item.contradicts, now, item.importance)
