"""The simulation loop: the slow loop (plan the day, reflect, sum up the day) and the fast loop
(perceive, react, talk, act) every tick, with all model calls of a phase issued concurrently.

Determinism: each agent's events are written in roster order after its phase, and the world
applies actions in an order shuffled by the run's seeded RNG, never in completion order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from simulacra.engine import checkpoint
from simulacra.engine.clock import Clock
from simulacra.engine.interventions import Interventions
from simulacra.engine.sink import EventRouter
from simulacra.experiments.config import Scenario
from simulacra.llm import Completion, Gateway, Request, call_record
from simulacra.mind import Agent, Decision, PlanStep, converse
from simulacra.worlds.base import Action, Observation
from simulacra.worlds.town.world import TownWorld

CONVERSATION_TURNS = 8


@dataclass(frozen=True)
class Progress:
    """Where a run is, for progress displays."""

    tick: int
    ticks: int
    now: datetime
    calls: int
    tokens: int
    fallbacks: int


ProgressHook = Callable[[Progress], None]


class Simulation:
    def __init__(
        self,
        scenario: Scenario,
        world: TownWorld,
        agents: dict[str, Agent],
        model: Gateway,
        router: EventRouter,
        clock: Clock,
        memory_db: Path,
        checkpoints: Path,
        on_progress: ProgressHook | None = None,
    ) -> None:
        self.scenario = scenario
        self.world = world
        self.agents = agents
        self.ids = list(agents)
        self.model = model
        self.router = router
        self.writer = router.writer
        self.clock = clock
        self.rng = random.Random(scenario.seed)
        self.memory_db = memory_db
        self.checkpoints = checkpoints
        self.on_progress = on_progress
        self.interventions = Interventions(scenario)
        self.yesterday: dict[str, str] = {}
        self.last_action: dict[str, list[Any]] = {}
        model.on_call = self.record_call

    # --- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        every = self.scenario.schedule.checkpoint_every
        while not self.clock.done:
            await self.step()
            if self.clock.index % every == 0 and not self.clock.done:
                self.checkpoint()

    async def step(self) -> None:
        now = self.clock.now
        if self.clock.starts_day:
            await self._each(lambda a: a.plan_day(now, self.yesterday.get(a.id)))
        talking = await self.interventions.fire_due(self, now)
        await self.interventions.interview_due(self, now)
        observations = {i: self.world.observe(i) for i in self.ids}
        chosen = await self._each(partial(self._sense, now=now, seen=observations))
        talking |= await self._conversations(now, dict(zip(self.ids, chosen, strict=True)), talking)
        self._act(now, {i: step for i, (_, step) in zip(self.ids, chosen, strict=True)}, talking)
        await self._each(lambda a: a.reflect_if_due(now))
        self.writer.emit("world", {"tick": self.clock.index, **self.world.frame()}, t=now)
        if self.clock.ends_day and self.clock.index + 1 < self.clock.ticks:
            summaries = await self._each(lambda a: a.summarize_day(now))
            self.yesterday = dict(zip(self.ids, summaries, strict=True))
        self.world.advance(self.clock.next - now)
        self.clock.advance()
        self._report()

    async def _each(self, job: Callable[[Agent], Any]) -> list[Any]:
        """One job per agent, all at once; each agent's events written as one block."""
        return await self.router.gather([((i,), partial(job, self.agents[i])) for i in self.ids])

    async def _sense(
        self, agent: Agent, *, now: datetime, seen: dict[str, Observation]
    ) -> tuple[Decision | None, PlanStep]:
        observation = seen[agent.id]
        decision = None
        if self.world.agents[agent.id].trip is None:  # on the way somewhere, one sees nothing
            salient = await agent.perceive(now, observation)
            if salient:
                decision = await agent.react(now, salient, observation.nearby_agents)
        return decision, await agent.current_action(now)

    async def _conversations(
        self,
        now: datetime,
        chosen: dict[str, tuple[Decision | None, PlanStep]],
        busy: dict[str, str],
    ) -> dict[str, str]:
        """Pair each agent that decided to talk with its target (in seeded order); each agent
        joins at most one conversation a tick. Returns who talked with whom."""
        wanting = [i for i in self.ids if (d := chosen[i][0]) and d.choice == "talk" and d.target]
        self.rng.shuffle(wanting)
        pairs: list[tuple[str, str, str]] = []
        taken = dict(busy)
        for a in wanting:
            decision = chosen[a][0]
            assert decision is not None and decision.target is not None
            b = decision.target
            here = self.world.agents[a].place
            if a in taken or b in taken or b not in self.agents:
                continue
            if self.world.agents[b].place != here or self.world.agents[b].trip is not None:
                continue
            pairs.append((a, b, decision.reason))
            taken[a], taken[b] = b, a
        await self.router.gather(
            [((a, b), partial(self.talk, a, b, now, topic)) for a, b, topic in pairs]
        )
        return {k: v for k, v in taken.items() if k not in busy}

    async def talk(self, a: str, b: str, now: datetime, topic: str | None) -> None:
        await converse(self.agents[a], self.agents[b], now, topic or None, CONVERSATION_TURNS)

    def _act(self, now: datetime, steps: dict[str, PlanStep], talking: dict[str, str]) -> None:
        for agent_id in self.rng.sample(self.ids, len(self.ids)):
            partner = talking.get(agent_id)
            if partner is not None and self.world.agents[partner].place == self._place(agent_id):
                name = self.agents[partner].persona.name
                action = Action("talk", f"talking with {name}", args={"with": partner})
                self._apply(agent_id, action, now, ["talk", partner])
                continue
            step = steps[agent_id]
            args = {"object": step.object, "state": step.object_state}
            action = Action("do", step.description, target=step.place, args=args)
            key = [step.description, step.place, step.object, step.object_state]
            if not self._apply(agent_id, action, now, key):
                # Rejected: carry on with the plan's activity where the agent is, without it.
                self._apply(agent_id, Action("do", step.description), now, [*key, "fallback"])

    def _apply(self, agent_id: str, action: Action, now: datetime, key: list[Any]) -> bool:
        outcome = self.world.apply(agent_id, action)
        if key == self.last_action.get(agent_id):
            return outcome.ok
        self.last_action[agent_id] = key
        where = self.world.agents[agent_id]
        data: dict[str, Any] = {
            "description": action.description,
            "place": action.target or where.place,
            "area": where.trip.area if where.trip else where.area,
            "object": action.args.get("object"),
            "object_state": action.args.get("state"),
            "ok": outcome.ok,
        }
        if not outcome.ok:
            data["reason"] = outcome.reason
        data.update(outcome.facts)
        self.writer.emit("action", data, t=now, agent=agent_id)
        return outcome.ok

    def _place(self, agent_id: str) -> str | None:
        where = self.world.agents[agent_id]
        return None if where.trip else where.place

    # --- accounting and progress ----------------------------------------------------------

    def record_call(self, request: Request, completion: Completion) -> None:
        self.router.sink(request.agent).emit(
            "llm.call",
            call_record(request, completion),
            t=self.clock.now,
            agent=request.agent,
        )

    def _report(self) -> None:
        if self.on_progress is None:
            return
        total = self.model.ledger.total
        self.on_progress(
            Progress(
                self.clock.index,
                self.clock.ticks,
                self.clock.now,
                total.calls,
                total.prompt_tokens + total.completion_tokens,
                total.fallbacks,
            )
        )

    # --- checkpoints ------------------------------------------------------------------------

    def checkpoint(self) -> None:
        offset = self.writer.flush()
        self.writer.emit(
            "checkpoint",
            {"tick": self.clock.index, "offset": offset, "path": self.checkpoints.name},
            t=self.clock.now,
        )
        resume_at = self.writer.flush()
        for agent in self.agents.values():
            agent.memory.flush()
        state = {
            "tick": self.clock.index,
            "offset": resume_at,
            "rng": checkpoint.rng_state(self.rng.getstate()),
            "world": self.world.snapshot(),
            "agents": {i: a.state() for i, a in self.agents.items()},
            "ledger": checkpoint.ledger_state(self.model.ledger),
            "interventions": self.interventions.state(),
            "yesterday": self.yesterday,
            "last_action": self.last_action,
        }
        checkpoint.save(self.checkpoints, state, self.memory_db)

    def restore(self, state: dict[str, Any]) -> None:
        """Everything but the agents (rebuilt by the caller from `state["agents"]`)."""
        self.clock.index = int(state["tick"])
        self.rng.setstate(checkpoint.rng_from(state["rng"]))
        self.world.restore(state["world"])
        checkpoint.restore_ledger(self.model.ledger, state["ledger"])
        self.interventions.restore(state["interventions"])
        self.yesterday = dict(state["yesterday"])
        self.last_action = dict(state["last_action"])
