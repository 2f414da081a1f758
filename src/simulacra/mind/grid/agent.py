"""The grid agent of SD-AgentFoundry-2D: each step one call for the message it sends, then one
for where it goes, from what the world shows it, its memories and the messages it received.

Requests carry seeds fixed by the run's seed, the step, the agent's place in the roster and
the call, so a seed fixes a run. Every answer is logged as a `decision` with its raw text.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from simulacra.core import Action, InterviewAnswer, Observation
from simulacra.llm import LanguageModel, Message, Request
from simulacra.mind.ablation import Ablation
from simulacra.mind.context import MindContext
from simulacra.mind.decision import model_decision
from simulacra.mind.grid.prompts import (
    MESSAGE_FALLBACK,
    MOVE_FALLBACK,
    AgentView,
    Extra,
    Fire,
    MessageChoice,
    MoveChoice,
    Received,
    action_prompt,
    message_prompt,
)
from simulacra.mind.grid.recall import BoundedRecall, Recall, StreamRecall
from simulacra.mind.interview import interview
from simulacra.runlog import EventSink

GRID_SYSTEM = (
    "You simulate one agent of a two-dimensional grid world with places and fires. Do the "
    "task at the end of the message and reply only in JSON."
)


@dataclass(frozen=True)
class GridIdentity:
    """Who a grid agent is, as interviews present it."""

    id: str
    gender: str
    details: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return f"Agent {self.id}"

    def summary(self) -> str:
        extra = "".join(f"; {key}: {value}" for key, value in self.details)
        return f"Agent {self.id} ({self.gender}) on a two-dimensional grid{extra}."


def request_seed(seed: int, step: int, index: int, call: int) -> int:
    return (seed * 1_000_003 + step * 10_007 + index * 2 + call) % 2**31


class GridAgent:
    def __init__(
        self,
        identity: GridIdentity,
        model: LanguageModel,
        recall: Recall,
        *,
        index: int,
        seed: int,
        messages: int,
        sink: EventSink | None = None,
        extras: tuple[Extra, ...] = (),
    ) -> None:
        self.id = identity.id
        self.identity = identity
        self.model = model
        self.memory = recall
        self.index = index
        self.seed = seed
        self.sink = sink
        self.extras = extras
        self.inbox: deque[Received] = deque(maxlen=messages)
        self._view: AgentView | None = None
        self._sent = ""

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        if phase == "message":
            return await self._message(observation, now)
        if phase == "action":
            return await self._move(observation, now)
        return None

    async def _message(self, observation: Observation, now: datetime) -> Action | None:
        view = AgentView.of(self.id, observation.facts)
        view = replace(
            view,
            memories=self.memory.recall(now, _situation(view, self.inbox)),
            received=tuple(self.inbox),
        )
        self._view = view
        prompt = message_prompt(view, self.extras)
        said = await self._ask(view.step, "grid.message", prompt, MESSAGE_FALLBACK, 0, now)
        assert isinstance(said, MessageChoice)
        self._sent = said.message.strip()  # at most 200 words: MessageChoice trims
        return Action("say", self._sent) if self._sent else None

    async def _move(self, observation: Observation, now: datetime) -> Action:
        assert self._view is not None, "the action phase follows the message phase"
        now_heard = [
            Received(int(r["step"]), str(r["sender"]), str(r["text"]))
            for r in observation.facts.get("received", ())
        ]
        self.inbox.extend(now_heard)
        view = replace(self._view, received=tuple(self.inbox))
        prompt = action_prompt(view, self._sent, self.extras)
        move = await self._ask(view.step, "grid.action", prompt, MOVE_FALLBACK, 1, now)
        assert isinstance(move, MoveChoice)
        await self.memory.remember(
            now,
            move.memory,
            heard=[f"agent {r.sender} said: {r.text}" for r in now_heard],
            seen=[_sighting(f) for f in view.fires],
        )
        choice = _choice(move)
        if choice == "stay":
            return Action("stay", choice)
        return Action("move", choice, target=move.direction)

    async def _ask(
        self,
        step: int,
        purpose: str,
        messages: tuple[Message, ...],
        fallback: BaseModel,
        call: int,
        now: datetime,
    ) -> BaseModel:
        request = Request(
            messages=messages,
            output=type(fallback),
            fallback=fallback,
            seed=request_seed(self.seed, step, self.index, call),
            purpose=purpose,
            agent=self.id,
        )
        completion = await self.model.complete(request)
        value = completion.value
        assert value is not None  # structured requests always carry a value or the fallback
        if self.sink is not None:
            decided = model_decision(purpose, _choice(value), completion, step=step)
            self.sink.emit(decided, t=now, agent=self.id)
        return value

    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        if not isinstance(self.memory, StreamRecall):
            raise ValueError(
                f"agent {self.id} keeps only its last notes (memory.mode bounded); interviews "
                "need memory.mode stream"
            )
        ctx = MindContext(
            self.identity,
            self.memory.stream,
            self.model,
            Ablation.FULL,
            self.sink,
            self.seed,
            GRID_SYSTEM,
        )
        return await interview(ctx, question, now, choices, sources)

    def state(self) -> dict[str, Any]:
        return {
            "notes": self.memory.notes(),
            "inbox": [[r.step, r.sender, r.text] for r in self.inbox],
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        if isinstance(self.memory, BoundedRecall):
            self.memory = BoundedRecall(self.memory.size, state["notes"])
        self.inbox.clear()
        self.inbox.extend(Received(int(s), str(a), str(t)) for s, a, t in state["inbox"])


def _sighting(f: Fire) -> str:
    return (
        f"{f.name} at ({f.position[0]}, {f.position[1]}), intensity {f.intensity}, "
        f"radius {f.radius:g}, {f.distance:.2f} cells from me"
    )


def _situation(view: AgentView, received: Any) -> str:
    """The retrieval query of the memory stream: where the agent is and what it now knows."""
    parts = [f"in {view.place.name}" if view.place else "outside the places"]
    parts += [_sighting(f) for f in view.fires]
    parts += [r.text for r in list(received)[-3:]]
    return "; ".join(parts)


def _choice(value: BaseModel) -> str:
    if isinstance(value, MoveChoice):
        # "move" without a direction cannot be carried out: the agent stays.
        return f"move {value.direction}" if value.action == "move" and value.direction else "stay"
    if isinstance(value, MessageChoice):
        return value.message
    return value.model_dump_json()
