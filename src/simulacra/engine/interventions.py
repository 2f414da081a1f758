"""What the scenario does to the run from outside: inner thoughts, world events, forced
conversations, and the interviews that measure what agents know."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from simulacra.experiments.config import InterventionConfig, Scenario
from simulacra.mind import converse
from simulacra.worlds.town.metrics import mentions_all

if TYPE_CHECKING:
    from simulacra.engine.loop import Simulation


class Interventions:
    """Fires each intervention and each interview once, at the first tick at or after its time."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.fired: list[int] = []
        self.asked: list[int] = []

    def state(self) -> dict[str, Any]:
        return {"fired": list(self.fired), "asked": list(self.asked)}

    def restore(self, state: dict[str, Any]) -> None:
        self.fired = list(state["fired"])
        self.asked = list(state["asked"])

    async def fire_due(self, sim: Simulation, now: datetime) -> dict[str, str]:
        """Fire what is due; returns the agents talking in forced conversations (both ways)."""
        talking: dict[str, str] = {}
        for i, item in enumerate(self.scenario.interventions):
            if i in self.fired or self.scenario.when(item.at) > now:
                continue
            self.fired.append(i)
            await self._fire(sim, item, now, talking)
        return talking

    async def _fire(
        self, sim: Simulation, item: InterventionConfig, now: datetime, talking: dict[str, str]
    ) -> None:
        target = item.who[0] if len(item.who) == 1 else None
        data: dict[str, Any] = {"type": item.type, "text": item.text}
        if item.type == "thought":
            agent = sim.agents[item.who[0]]
            sim.writer.emit("intervention", data, t=now, agent=target)
            # The source's seed: a memory the agent holds as its own intention, then a new plan.
            meta = {"intervention": "thought"}
            await agent.memory.add("observation", item.text, now, item.importance, meta=meta)
            await agent.replan(now, item.text)
        elif item.type == "event":
            assert item.place and item.object and item.state
            data.update(place=item.place, object=item.object, state=item.state)
            sim.writer.emit("intervention", data, t=now, agent=None)
            sim.world.set_object(item.place, item.object, item.state)
            sim.world.announce(item.place, item.text)
        else:
            a, b = item.who
            data["agents"] = [a, b]
            sim.writer.emit("intervention", data, t=now, agent=None)
            if a in talking or b in talking:
                return
            talking[a], talking[b] = b, a
            await converse(sim.agents[a], sim.agents[b], now, item.text)

    async def interview_due(self, sim: Simulation, now: datetime) -> None:
        """Ask every agent the scenario's question; log who is aware as a metric event."""
        plan = self.scenario.interviews
        if plan is None:
            return
        for i, moment in enumerate(plan.times):
            if i in self.asked or self.scenario.when(moment) > now:
                continue
            self.asked.append(i)
            answers = await sim.router.gather(
                [((a,), _asker(sim, a, plan.question, now)) for a in sim.ids]
            )
            aware = [
                a.id
                for a, answer in zip(sim.agents.values(), answers, strict=True)
                if mentions_all(answer.answer, plan.aware_when)
            ]
            sim.writer.emit(
                "metric", {"name": "aware", "value": len(aware), "agents": aware}, t=now
            )


def _asker(sim: Simulation, agent_id: str, question: str, now: datetime) -> Any:
    agent = sim.agents[agent_id]
    return lambda: agent.interview(question, now)
