"""An Agent composes the faculties around one persona, one memory stream and one model: the
generative agent's mind.

The engine drives it through `decide`, once per phase of the town's tick: `plan` (the day, at
its first tick), `decide` (perceive, react, and the step to take now), `act`, `reflect` (when
due) and `summarize` (the day, at its last tick). A "react" decision rewrites the next hour
or two of the plan around the reaction; "wait" stays a tick, until someone else is done
with what the step needs; "replan" rebuilds the rest of the day here; "talk" goes to the
world, which pairs talkers, and the engine holds the conversation through `converse` (or,
with a visitor, has this agent speak first through `answer`: visitor.py). After news (a
conversation, a planted thought) the agent keeps a thought of what it means for its plans
and decides whether the rest of its day changes (`take_in`), as the source writes a
planning thought after every conversation.

Budget (one agent, one day of 10-minute ticks, every module on, the synthetic busy cafe day of
tests/mind/test_budget.py, measured): 132 calls, 5.5 an hour: plan.daily 1, plan.hourly 6 (the
day's blocks broken into hours three at a time), plan.actions 17 (one per waking hour),
summarize.day 1, react.decide 16, converse.relation 1 and converse.turn 2, reflect.* 4, and
memory.importance 83: every record is rated, each in its own call as the source does. With
`memory.rating_batch: 8` (a look's sights, a phase's plans, a reflection's insights in one
call) the day costs 114; under `memory.importance: rule`, 49 (2.0 an hour). A quiet day costs
less: react.decide and the ratings of sights follow what happens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from simulacra.core import Action, Address, InterviewAnswer, Observation
from simulacra.llm import LanguageModel
from simulacra.memory import THOUGHT, MemoryRecord, MemoryStream
from simulacra.memory.prompts import Voice
from simulacra.mind.ablation import Ablation
from simulacra.mind.context import MindContext, clock
from simulacra.mind.decision import model_decision
from simulacra.mind.interview import interview
from simulacra.mind.town.converse import Conversation, converse
from simulacra.mind.town.correct import correct
from simulacra.mind.town.perceive import Perception, perceive
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.places import KnownPlaces
from simulacra.mind.town.plan import Planner
from simulacra.mind.town.react import Reaction, decide
from simulacra.mind.town.relation import Relations
from simulacra.mind.town.schedule import PlanStep, Schedule
from simulacra.mind.town.visitor import (
    answer_visitor,
    opened_from,
    opened_json,
    speak_to_visitor,
    unanswered,
)
from simulacra.runlog import EventSink
from simulacra.runlog.events import PlaceLearned

WAIT_MINUTES = 10  # a tick: then the step runs, or the agent decides again
CONVERSATION_TURNS = 8
NEWSWORTHY = 3.0  # a conversation rated below this is small talk (the keyword rule's is 2)


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
        sink: EventSink | None = None,
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
        self.ctx = MindContext(persona, memory, model, self.ablation, sink, seed)
        # The stream's own prompts (ratings, reflection) start as the mind's do.
        memory.voice = Voice(self.ctx.system, persona.summary())
        # What it knows of the town (places.py): the world reports what it has seen.
        self.known = KnownPlaces(self.places)
        self.planner = Planner(self.ctx, self.known)
        self.perception = Perception()
        self.talked: dict[str, datetime] = {}
        self.names: dict[str, str] = {}
        self.objects: tuple[str, ...] = ()
        self.current: PlanStep | None = None
        self.interruption: PlanStep | None = None
        # Whom it chose to talk to at a time, and why: its own reason in that conversation.
        self.wants: tuple[str, datetime, str] | None = None
        self.yesterday: str | None = None
        self.relations = Relations()
        # Conversations it opened with a visitor, by visitor, waiting a tick for the reply.
        self.opened: dict[str, Conversation] = {}

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        """One phase of the town's tick (see the module's docstring)."""
        seen = observation.facts.get("known")
        if isinstance(seen, dict):
            self.known.seen(seen)
        if phase == "plan":
            await self.plan_day(now, self.yesterday)
        elif phase == "decide":
            for opened in self.opened.values():  # the visitor let a tick pass without a word
                unanswered(self, opened, now)
            self.opened.clear()
            travelling = bool(observation.facts.get("travelling"))  # on the way, one sees nothing
            salient = [] if travelling else await self.perceive(now, observation)
            decision = None
            if salient:
                # Visitors here are people to talk to as much as agents are.
                visitors = observation.facts.get("visitors", [])
                nearby = [*observation.nearby_agents, *visitors]
                decision = await self.react(now, salient, nearby)
            await self.current_action(now)
            if decision is not None and decision.choice == "talk" and decision.target:
                self.wants = (decision.target, now, decision.reason)
                return Action("talk", decision.reason, target=decision.target)
        elif phase == "act":
            return self._act(observation)
        elif phase == "reflect":
            await self.reflect_if_due(now)
        elif phase == "summarize":
            self.yesterday = await self.summarize_day(now)
        return None

    def _act(self, observation: Observation) -> Action:
        partner = observation.facts.get("talking_with")
        if isinstance(partner, str):
            name = str(observation.facts.get("partner_name", partner))
            return Action("talk", f"talking with {name}", args={"with": partner})
        step = self.current
        assert step is not None, "the act phase follows the decide phase"
        args = {"object": step.object, "state": step.object_state}
        return Action("do", step.description, target=step.place, args=args)

    async def think(self, text: str, now: datetime, importance: float | None = None) -> None:
        """The source's seed: an inner thought the agent holds as its own (the scenario writes
        it in the first person), rated like any memory unless the scenario gives an
        importance; whether the day changes around it is the agent's own decision."""
        meta = {"intervention": "thought", "source": "planted"}
        await self.memory.add(THOUGHT, text, now, importance, meta=meta)
        self.hear(text, now)
        if any(block.covers(now) for block in self.planner.schedule.blocks):
            await self.take_in(text, now)

    async def take_in(self, news: str, now: datetime, evidence: MemoryRecord | None = None) -> bool:
        """What `news` means for this agent's plans, kept as a thought citing `evidence` when
        given (the conversation), and the rest of the day replanned if it decides so. True
        when it replanned. Without planning there is no plan to change, and after small talk
        (a conversation rated below NEWSWORTHY) nothing to change it: neither asks the model."""
        if not self.ablation.plans:
            return False
        if evidence is not None and evidence.importance < NEWSWORTHY:
            return False  # small talk, rated so: nothing to plan around, and no call
        answer = await self.planner.revise(now, news)
        value = answer.value
        thought = value.thought.strip()
        if evidence is not None and thought:
            meta = {"source": "conversation", "conversation": evidence.meta.get("conversation")}
            await self.memory.add(THOUGHT, thought, now, evidence=[evidence.id], meta=meta)
        self.ctx.emit(model_decision("plan.revise", value.plans, answer), now)
        if value.plans != "replan":
            return False
        # The plan is remade around what was said to it, not around the thought: SmolLM2-135M's
        # thoughts ("Theo Brandt's plan for Wednesday ...") lost the time and place, and its
        # replans copied the old day (0 guests in the demo). The thought is a memory all the same.
        mine = f"{self.persona.name}: "
        said = [line for line in news.splitlines() if line.strip()]
        told = next((line for line in said if not line.startswith(mine)), said[0] if said else "")
        await self.replan(now, told or thought, self.planner.appointment(value, now))
        return True

    async def correct(
        self,
        text: str,
        contradicts: Sequence[Sequence[str]],
        now: datetime,
        importance: float | None = None,
    ) -> list[str]:
        """A scenario's correction: what it contradicts is invalidated and the day, if
        planned, is planned anew around the correction."""
        gone = await correct(self.ctx, text, contradicts, now, importance)
        self.hear(text, now)
        if any(block.covers(now) for block in self.planner.schedule.blocks):
            await self.replan(now, text)
        return gone

    async def converse(self, other: Agent, now: datetime, topic: str) -> None:
        await converse(self, other, now, topic or None, CONVERSATION_TURNS)

    def reason_to_talk(self, other: str, now: datetime) -> str | None:
        """Why this agent chose, at `now`, to talk to `other` (None: it did not choose to)."""
        if self.wants is None:
            return None
        target, at, reason = self.wants
        return (reason or None) if (target, at) == (other, now) else None

    async def answer(self, address: Address, now: datetime) -> None:
        """A visitor's line answered (in the conversation this agent opened with them, if
        it did), or, without a line, this agent speaking to them first."""
        if not address.line:
            self.opened[address.speaker] = await speak_to_visitor(self, address, now)
            return
        self.hear(address.line, now)
        await answer_visitor(self, address, now, self.opened.pop(address.speaker, None))

    def hear(self, text: str, now: datetime) -> list[str]:
        """Places of the town `text` names that this agent did not know: told of them, it
        knows them now (by name; it sees their rooms when it gets there)."""
        new = self.known.told(text)
        for place in new:
            self.ctx.emit(PlaceLearned(place=place, text=text[:300]), now)
        return new

    @property
    def unknown_places(self) -> int:
        """How many planned places named no known place and were replaced by home."""
        return self.planner.unknown_places

    async def plan_day(self, now: datetime, yesterday: str | None = None) -> list[PlanStep]:
        """The day's 5-8 blocks; none under ablations without planning."""
        if not self.ablation.plans:
            return []
        steps = await self.planner.plan_day(now, yesterday)
        await self.planner.flush(now)
        return steps

    async def current_action(self, now: datetime) -> PlanStep:
        """The step to execute now. Without planning, the agent improvises one step at a time
        (one call per step of 5-60 minutes) and sleeps when its routine says so."""
        if self.interruption is not None and self.interruption.covers(now):
            self.current = self.interruption
        elif self.ablation.plans:
            self.current = await self.planner.current_action(now, self.objects)
            await self.planner.flush(now)  # an hour and its actions: one write, one rating
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
        # What it holds, as the world says: the object its step named may be someone else's
        # (the step was refused), and that sight is news to it, the one that calls for waiting.
        own = observation.facts.get("using")
        own = own if isinstance(own, str) else None
        return await perceive(self.ctx, self.perception, now, observation, own)

    async def react(
        self, now: datetime, salient: Sequence[MemoryRecord], nearby: Sequence[str]
    ) -> Reaction:
        decision = await decide(
            self.ctx,
            now,
            salient,
            nearby,
            self.current,
            self.talked,
            self.names,
            self.planner.ahead(now),
        )
        step = self.current
        if decision.choice == "react" and self.ablation.plans:
            what = decision.reason or salient[0].text
            self.interruption = None
            await self.planner.react(now, what[:120], self.objects)
            await self.planner.flush(now)
        elif decision.choice == "wait" and step is not None:
            waiting = f"waiting to start {step.description}"[:80]
            self.interruption = PlanStep(now, WAIT_MINUTES, step.place, waiting)
        elif decision.choice == "replan":
            await self.replan(now, decision.reason)
        return decision

    async def replan(
        self, now: datetime, reason: str = "", keep: PlanStep | None = None
    ) -> list[PlanStep]:
        """The rest of the day rebuilt from `now`, holding `keep` if given; the past stays."""
        self.interruption = None
        if not self.ablation.plans:
            self.current = None
            return []
        steps = await self.planner.replan(now, reason, keep)
        await self.planner.flush(now)
        return steps

    async def reflect_if_due(self, now: datetime) -> list[MemoryRecord]:
        if not self.ablation.reflects:
            return []
        return await self.memory.reflect_if_due(now)

    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        return await interview(self.ctx, question, now, choices, sources)

    async def summarize_day(self, now: datetime) -> str:
        return await self.planner.summarize_day(now)

    async def remember_conversation(
        self, conversation: Conversation, names: Mapping[str, str], now: datetime
    ) -> MemoryRecord | None:
        """Store a conversation this agent took part in, as one dialogue record."""
        others = [p for p in conversation.participants if p != self.id]
        for other in others:
            self.talked[other] = now
        self.hear(conversation.transcript(dict(names)), now)
        if not self.ablation.remembers:
            return None
        with_whom = " and ".join(names.get(o, o) for o in others)
        raised = conversation.raised_by()
        topics = list(dict.fromkeys(conversation.topic_of(s) for s in raised))
        # The header names the topics only where a speaker chose to bring them up.
        about = f"about {'; '.join(topics)}" if raised else "(small talk)"
        text = (
            f"Conversation with {with_whom} at {clock(now)} on {now:%A %B %d} {about}:\n"
            f"{conversation.transcript(dict(names))}"
        )
        # Its topic and who it was with name it as something to talk about (react.topic).
        # Its names: whom a prompt says it was heard from (mind/provenance.py).
        meta: dict[str, Any] = {"conversation": conversation.id, "with": others, "names": with_whom}
        if raised:
            heard = [conversation.topic_of(s) for s in raised if s != self.id]
            meta |= {"topic": (heard or topics)[0], "from": with_whom}
        record = await self.memory.add("dialogue", text, now, meta=meta)
        # Whoever chose the topic, what was said may change this agent's plans: it decides.
        await self.take_in(conversation.transcript(dict(names)), now, record)
        return record

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
            "laid": self.planner.laid,
            "perception": self.perception.to_dict(),
            "talked": {k: v.isoformat() for k, v in self.talked.items()},
            "names": dict(self.names),
            "objects": list(self.objects),
            "known": self.known.to_dict(),
            "yesterday": self.yesterday,
            "relations": self.relations.to_dict(),
            "opened": opened_json(self.opened),
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        if state.get("agent") != self.id:
            raise ValueError(f"agent state belongs to {state.get('agent')!r}, not to {self.id!r}")
        self.planner.schedule = Schedule.from_dict(state["schedule"])
        self.planner.unknown_places = int(state.get("unknown_places", 0))
        self.planner.laid = int(state.get("laid", 0))
        self.current = _step(state.get("current"))
        self.interruption = _step(state.get("interruption"))
        self.perception = Perception.from_dict(state.get("perception", {}))
        self.talked = {k: datetime.fromisoformat(v) for k, v in state.get("talked", {}).items()}
        self.names = dict(state.get("names", {}))
        self.objects = tuple(state.get("objects", ()))
        self.known.restore(state.get("known"))
        self.yesterday = state.get("yesterday")
        self.relations = Relations.from_dict(state.get("relations", {}))
        self.opened = opened_from(state.get("opened", {}))
