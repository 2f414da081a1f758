"""An Agent composes the faculties around one persona, one memory stream and one model.

The engine drives it: `plan_day` at the start of a day, then every tick `perceive`, `react`
and `current_action`; `reflect_if_due` on the slow loop; `converse` when a decision says talk.
A "react" decision inserts a short reaction step here; "replan" rebuilds the rest of the day
here; "talk" is left to the engine, which holds both agents.

Budget (one agent, one day of 10-minute ticks, every module on, synthetic cafe day in
tests/mind/test_budget.py): about 66 calls, 2.75 an hour: plan.daily 1, plan.hourly 3,
plan.actions 17 (one per waking hour), summarize.day 1, react.decide 16, converse.turn 6,
memory.importance 18 (salient sights and dialogues only), reflect.* 4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from simulacra.llm import LanguageModel
from simulacra.memory import MemoryRecord, MemoryStream
from simulacra.mind.ablation import Ablation
from simulacra.mind.context import MindContext, clock
from simulacra.mind.converse import Conversation
from simulacra.mind.interview import InterviewAnswer, interview
from simulacra.mind.perceive import Perception, perceive
from simulacra.mind.persona import Persona
from simulacra.mind.plan import Planner
from simulacra.mind.react import Decision, decide
from simulacra.mind.schedule import PlanStep, Schedule
from simulacra.runlog import EventSink
from simulacra.worlds.base import Observation

REACTION_MINUTES = 10


def _step(data: dict[str, Any] | None) -> PlanStep | None:
    return PlanStep.from_dict(data) if data else None


class Agent:
    def __init__(
        self,
        persona: Persona,
        memory: MemoryStream,
        model: LanguageModel,
        *,
        ablation: Ablation = Ablation.FULL,
        places: Sequence[str] = (),
        events: EventSink | None = None,
        seed: int = 0,
    ) -> None:
        if places and persona.home not in places:
            raise ValueError(
                f"persona {persona.id!r}: home {persona.home!r} is not a place of this world; "
                f"known places: {', '.join(places)}. Set `home` to one of them."
            )
        self.id = persona.id
        self.persona = persona
        self.memory = memory
        self.ablation = Ablation(ablation)
        self.places = tuple(places)
        self.ctx = MindContext(persona, memory, model, self.ablation, events, seed)
        self.planner = Planner(self.ctx, self.places)
        self.perception = Perception()
        self.talked: dict[str, datetime] = {}
        self.names: dict[str, str] = {}
        self.objects: tuple[str, ...] = ()
        self.current: PlanStep | None = None
        self.interruption: PlanStep | None = None

    @property
    def unknown_places(self) -> int:
        """How many planned places named no known place and were replaced by home."""
        return self.planner.unknown_places

    async def plan_day(self, now: datetime, yesterday: str | None = None) -> list[PlanStep]:
        """The day's 5-8 blocks; none under ablations without planning."""
        if not self.ablation.plans:
            return []
        return await self.planner.plan_day(now, yesterday)

    async def current_action(self, now: datetime) -> PlanStep:
        """The step to execute now. Without planning, the agent improvises one step at a time
        (one call per step of 5-60 minutes) and sleeps when its routine says so."""
        if self.interruption is not None and self.interruption.covers(now):
            self.current = self.interruption
        elif self.ablation.plans:
            self.current = await self.planner.current_action(now, self.objects)
        else:
            self.current = await self.planner.improvise(now, self.current)
        return self.current

    async def perceive(self, now: datetime, observation: Observation) -> list[MemoryRecord]:
        names = observation.facts.get("names", {})
        if isinstance(names, dict):
            self.names.update({k: v for k, v in names.items() if isinstance(v, str)})
        objects = observation.facts.get("objects", ())
        if isinstance(objects, dict | list | tuple):  # names, or a mapping name -> state
            self.objects = tuple(o for o in objects if isinstance(o, str))
        own = self.current.object if self.current is not None else None
        return await perceive(self.ctx, self.perception, now, observation, own)

    async def react(
        self, now: datetime, salient: Sequence[MemoryRecord], nearby: Sequence[str]
    ) -> Decision:
        decision = await decide(
            self.ctx, now, salient, nearby, self.current, self.talked, self.names
        )
        if decision.choice == "react":
            place = self.current.place if self.current else self.persona.home
            what = decision.reason or "responding to what just happened"
            self.interruption = PlanStep(now, REACTION_MINUTES, place, what)
            self.current = self.interruption
        elif decision.choice == "replan":
            await self.replan(now, decision.reason)
        return decision

    async def replan(self, now: datetime, reason: str = "") -> list[PlanStep]:
        """The rest of the day rebuilt from `now`; the past stays as it was."""
        self.interruption = None
        if not self.ablation.plans:
            self.current = None
            return []
        return await self.planner.replan(now, reason)

    async def reflect_if_due(self, now: datetime) -> list[MemoryRecord]:
        if not self.ablation.reflects:
            return []
        return await self.memory.reflect_if_due(now)

    async def interview(self, question: str, now: datetime) -> InterviewAnswer:
        return await interview(self.ctx, question, now)

    async def summarize_day(self, now: datetime) -> str:
        return await self.planner.summarize_day(now)

    async def remember_conversation(
        self, conversation: Conversation, names: Mapping[str, str], now: datetime
    ) -> MemoryRecord | None:
        """Store a conversation this agent took part in, as one dialogue record."""
        others = [p for p in conversation.participants if p != self.id]
        for other in others:
            self.talked[other] = now
        if not self.ablation.remembers:
            return None
        with_whom = " and ".join(names.get(o, o) for o in others)
        text = (
            f"Conversation with {with_whom} at {clock(now)} on {now:%A %B %d} about "
            f"{conversation.topic}:\n{conversation.transcript(dict(names))}"
        )
        meta = {"conversation": conversation.id, "with": others}
        return await self.memory.add("dialogue", text, now, meta=meta)

    def state(self) -> dict[str, Any]:
        """JSON-ready: everything but the memory stream, which persists on its own."""
        return {
            "agent": self.id,
            "ablation": self.ablation.value,
            "seed": self.ctx.seed,
            "schedule": self.planner.schedule.to_dict(),
            "current": self.current.to_dict() if self.current else None,
            "interruption": self.interruption.to_dict() if self.interruption else None,
            "unknown_places": self.planner.unknown_places,
            "perception": self.perception.to_dict(),
            "talked": {k: v.isoformat() for k, v in self.talked.items()},
            "names": dict(self.names),
            "objects": list(self.objects),
        }

    @classmethod
    def restore(
        cls,
        state: Mapping[str, Any],
        persona: Persona,
        memory: MemoryStream,
        model: LanguageModel,
        *,
        places: Sequence[str] = (),
        events: EventSink | None = None,
    ) -> Agent:
        if state.get("agent") != persona.id:
            raise ValueError(
                f"agent state belongs to {state.get('agent')!r}, not to persona {persona.id!r}"
            )
        agent = cls(
            persona,
            memory,
            model,
            ablation=Ablation(state["ablation"]),
            places=places,
            events=events,
            seed=int(state["seed"]),
        )
        agent.planner.schedule = Schedule.from_dict(state["schedule"])
        agent.planner.unknown_places = int(state.get("unknown_places", 0))
        agent.current = _step(state.get("current"))
        agent.interruption = _step(state.get("interruption"))
        agent.perception = Perception.from_dict(state.get("perception", {}))
        agent.talked = {k: datetime.fromisoformat(v) for k, v in state.get("talked", {}).items()}
        agent.names = dict(state.get("names", {}))
        agent.objects = tuple(state.get("objects", ()))
        return agent
