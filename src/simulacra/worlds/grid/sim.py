"""The grid step loop: two model calls per agent per step, every event logged.

One step: the fires due start; neighbours are found from where everyone stands; every agent
decides its message (concurrently); messages are delivered along that same neighbourhood;
every agent decides its move (concurrently); the moves apply one agent at a time in agent
order. Answers are applied in agent order whatever order they arrive in, so a seed fixes a run.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import IO, Any

from pydantic import BaseModel

from simulacra.llm import Completion, Gateway, Request, call_record
from simulacra.runlog import EventWriter
from simulacra.worlds.base import Action
from simulacra.worlds.grid.config import GridScenario
from simulacra.worlds.grid.prompts import (
    MESSAGE_FALLBACK,
    MOVE_FALLBACK,
    AgentView,
    MessageChoice,
    MoveChoice,
    Neighbour,
    Received,
    action_prompt,
    message_prompt,
)
from simulacra.worlds.grid.recall import BoundedRecall, Recall
from simulacra.worlds.grid.world import FireSighting, GridWorld, Place

MAX_MESSAGE_WORDS = 200


@dataclass
class _Inbox:
    """One agent's bounded history of received messages, and what it must be told next step."""

    received: deque[Received]
    refusal: str = ""


@dataclass
class _Calls:
    """Completions reported by the gateway hook, logged in agent order after each phase."""

    order: Mapping[str, int]
    pending: list[tuple[Request, Completion]] = field(default_factory=list)

    def hook(self, request: Request, completion: Completion) -> None:
        self.pending.append((request, completion))

    def drain(self) -> list[tuple[Request, Completion]]:
        calls = sorted(self.pending, key=lambda rc: self.order.get(rc[0].agent or "", -1))
        self.pending.clear()
        return calls


def _clip_words(text: str, limit: int = MAX_MESSAGE_WORDS) -> str:
    words = text.split()
    return " ".join(words[:limit])


def _request_seed(seed: int, step: int, index: int, call: int) -> int:
    return (seed * 1_000_003 + step * 10_007 + index * 2 + call) % 2**31


class GridSimulation:
    """Drives a GridWorld with a model, writing events and per-agent memory records."""

    def __init__(
        self,
        scenario: GridScenario,
        world: GridWorld,
        model: Gateway,
        writer: EventWriter,
        memory_log: IO[str],
        *,
        seed: int,
        recalls: Mapping[str, Recall] | None = None,
    ) -> None:
        self.scenario = scenario
        self.world = world
        self.model = model
        self.writer = writer
        self.memory_log = memory_log
        self.seed = seed
        self.inbox = {a: _Inbox(deque(maxlen=scenario.memory.messages)) for a in world.agents}
        self.recalls = dict(recalls or {})
        for agent in world.agents:
            self.recalls.setdefault(agent, BoundedRecall(scenario.memory.size))
        self.calls = _Calls({a: i for i, a in enumerate(world.agents)})

    def emit_world(self, actions: Mapping[str, str] | None = None, **extra: Any) -> None:
        snap = self.world.snapshot()
        for agent, state in snap["agents"].items():
            state["area"] = None
            state["action"] = (actions or {}).get(agent)
        self.writer.emit(
            "world",
            {
                "step": snap["step"],
                "tick": snap["step"],
                "agents": snap["agents"],
                "positions": {a: [s["x"], s["y"]] for a, s in snap["agents"].items()},
                "occupancy": snap["occupancy"],
                "fires": snap["fires"],
                **extra,
            },
        )

    async def run(self, steps: int) -> None:
        previous = self.model.on_call
        self.model.on_call = self.calls.hook
        try:
            for _ in range(steps):
                await self.step()
                self.writer.flush()
        finally:
            self.model.on_call = previous

    async def step(self) -> None:
        world = self.world
        started = [e.data["name"] for e in world.advance()]
        step = world.step
        neighbours = world.neighbours()
        occupancy = world.occupancy()
        views = {a: self._view(a, neighbours[a], occupancy) for a in world.agents}
        perceived = {
            f.name: [a for a, v in views.items() if any(s.fire is f for s in v.fires)]
            for f in world.active_fires()
        }

        said = await self._decide(
            "grid.message",
            {a: (message_prompt(v), MessageChoice, MESSAGE_FALLBACK) for a, v in views.items()},
            call=0,
        )
        sent = {a: _clip_words(c.message) for a, c in said.items() if isinstance(c, MessageChoice)}
        received_now: dict[str, list[Received]] = {a: [] for a in world.agents}
        for sender in world.agents:
            if not sent[sender]:
                continue
            for recipient in neighbours[sender]:
                note = Received(step, sender, sent[sender])
                received_now[recipient].append(note)
                self.inbox[recipient].received.append(note)
                self.writer.emit(
                    "message",
                    {"to": [recipient], "recipient": recipient, "step": step, "text": note.text},
                    agent=sender,
                )

        views = {a: replace(v, received=tuple(self.inbox[a].received)) for a, v in views.items()}
        chose = await self._decide(
            "grid.action",
            {a: (action_prompt(v, sent[a]), MoveChoice, MOVE_FALLBACK) for a, v in views.items()},
            call=1,
        )
        actions: dict[str, str] = {}
        refused: list[str] = []
        for agent in world.agents:
            move = chose[agent]
            assert isinstance(move, MoveChoice)
            before = world.positions[agent]
            moving = move.action == "move" and move.direction is not None
            action = Action("move", target=move.direction) if moving else Action("stay")
            outcome = world.apply(agent, action)
            inbox = self.inbox[agent]
            inbox.refusal = outcome.reason if "refused_by" in outcome.facts else ""
            if inbox.refusal:
                refused.append(agent)
            await self.recalls[agent].remember(
                step,
                move.memory,
                heard=[f"agent {r.sender} said: {r.text}" for r in received_now[agent]],
                seen=[_sighting(s) for s in views[agent].fires],
            )
            actions[agent] = _choice(move)
            place = world.place_of(agent)
            self.writer.emit(
                "action",
                {
                    "step": step,
                    "description": actions[agent],
                    "place": place.name if place else None,
                    "ok": outcome.ok,
                    **({"reason": outcome.reason} if outcome.reason else {}),
                    "from": list(before),
                    "to": list(world.positions[agent]),
                },
                agent=agent,
            )
            record = {
                "step": step,
                "agent": agent,
                "from": list(before),
                "to": list(world.positions[agent]),
                "place": place.name if place else None,
                "action": actions[agent],
                "outcome": outcome.reason or "ok",
                "memory": move.memory,
                "reasoning": move.reasoning,
                "message": sent[agent],
                "message_reasoning": getattr(said[agent], "reasoning", ""),
                "received": [{"from": r.sender, "text": r.text} for r in received_now[agent]],
            }
            self.memory_log.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.emit_world(actions, started=started, perceived=perceived, refused=refused)

    def _view(
        self, agent: str, neighbours: tuple[str, ...], occupancy: Mapping[str, int]
    ) -> AgentView:
        world = self.world
        place = world.place_of(agent)
        inbox = self.inbox[agent]
        situation = _situation(world, agent, place, inbox.received)
        return AgentView(
            agent=agent,
            persona=world.personas[agent],
            step=world.step,
            position=world.positions[agent],
            place=place,
            present=occupancy[place.name] if place else 0,
            places=world.layout.places,
            half_size=world.layout.half_size,
            fires=world.layout.perceived_fires(world.positions[agent], world.step),
            neighbours=tuple(
                Neighbour(n, world.personas[n].gender, world.positions[n], world.place_of(n))
                for n in neighbours
            ),
            memories=self.recalls[agent].recall(world.step, situation),
            received=tuple(inbox.received),
            refusal=inbox.refusal,
        )

    async def _decide(
        self,
        purpose: str,
        prompts: Mapping[str, tuple[Any, type[BaseModel], BaseModel]],
        *,
        call: int,
    ) -> dict[str, BaseModel]:
        """One call per agent, all at once; logged and returned in agent order."""
        settings = self.scenario.model
        requests = {
            agent: Request(
                messages=messages,
                output=output,
                fallback=fallback,
                max_tokens=settings.max_tokens,
                temperature=settings.temperature,
                seed=_request_seed(self.seed, self.world.step, index, call),
                purpose=purpose,
                agent=agent,
            )
            for index, (agent, (messages, output, fallback)) in enumerate(prompts.items())
        }
        completions = await asyncio.gather(*(self.model.complete(r) for r in requests.values()))
        for request, completion in self.calls.drain():
            self.writer.emit("llm.call", call_record(request, completion), agent=request.agent)
        chosen: dict[str, BaseModel] = {}
        for agent, completion in zip(requests, completions, strict=True):
            value = completion.value
            assert value is not None  # structured requests always carry a value or the fallback
            chosen[agent] = value
            self.writer.emit(
                "decision",
                {
                    "purpose": purpose,
                    "step": self.world.step,
                    "choice": _choice(value),
                    "raw": completion.text,
                    "parsed": value.model_dump(mode="json"),
                    "fallback": completion.fallback,
                    **({"error": completion.error} if completion.error else {}),
                },
                agent=agent,
            )
        return chosen


def _sighting(s: FireSighting) -> str:
    f = s.fire
    return (
        f"{f.name} at ({f.position[0]}, {f.position[1]}), intensity {f.intensity}, "
        f"radius {f.radius:g}, {s.distance:.2f} cells from me"
    )


def _situation(
    world: GridWorld, agent: str, place: Place | None, received: Iterable[Received]
) -> str:
    """The retrieval query of the memory stream: where the agent is and what it now knows."""
    fires = world.layout.perceived_fires(world.positions[agent], world.step)
    parts = [f"in {place.name}" if place else "outside the places"]
    parts += [_sighting(s) for s in fires]
    parts += [r.text for r in list(received)[-3:]]
    return "; ".join(parts)


def _choice(value: BaseModel) -> str:
    if isinstance(value, MoveChoice):
        # "move" without a direction cannot be carried out: the agent stays.
        return f"move {value.direction}" if value.action == "move" and value.direction else "stay"
    if isinstance(value, MessageChoice):
        return value.message
    return value.model_dump_json()
