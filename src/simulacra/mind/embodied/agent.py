"""The embodied agents that ask a model: `vlm`, the source's agent (the first-person image
and the prompt in, free text out), and `caption`, the offline default (the view described in
words, so that any text model answers, the embedded one included).

Each decision: read the world's account of the last action into the history, assemble the
prompt, ask for free text within the mind's token budget (`agents.options.<mind>.max_tokens`:
room for the description the prompt asks for before the movement sentence, which comes
last), log a `decision` (raw reply, image path, caption, the inference wall time as
`latency_s`, whether the nudge was shown, and `cut`: whether the reply ran to the budget and
was cut off) and hand the text to the world, which interprets and applies it.
Inference wall time is the model call's; simulated time moves one tick per decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core import Action, Observation
from simulacra.llm import LanguageModel, Request
from simulacra.mind.decision import model_decision
from simulacra.mind.embodied.caption import describe
from simulacra.mind.embodied.prompts import (
    FALLBACK,
    PURPOSE_CAPTION,
    PURPOSE_TALK,
    PURPOSE_VLM,
    Entry,
    Situation,
    decision_messages,
    flatten,
    is_silence,
    talk_messages,
)
from simulacra.runlog import EventSink

Sight = Literal["vlm", "caption"]
DEFAULT_HISTORY = 5


class CaptionOptions(BaseModel):
    """The caption agent's settings (`agents.options.caption`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    default_tokens: ClassVar[int] = 256

    max_tokens: int = Field(
        default=default_tokens,
        ge=16,
        description="completion tokens a decision may take: what it sees, why, then the move",
    )


class VlmOptions(CaptionOptions):
    """The vision agent's settings (`agents.options.vlm`): a served vision model describes
    the image at more length before its movement sentence."""

    default_tokens: ClassVar[int] = 512

    max_tokens: int = Field(
        default=default_tokens,
        ge=16,
        description="completion tokens a decision may take: what it sees, why, then the move",
    )


class EmbodiedAgent:
    def __init__(
        self,
        agent: str,
        model: LanguageModel,
        *,
        sight: Sight,
        seed: int,
        history: int = DEFAULT_HISTORY,
        max_tokens: int = CaptionOptions.default_tokens,
        talks: bool = False,
        sink: EventSink | None = None,
    ) -> None:
        self.id = agent
        self.model = model
        self.sight = sight
        self.seed = seed
        self.size = history
        self.max_tokens = max_tokens
        self.talks = talks
        self.sink = sink
        self.history: list[Entry] = []
        self._pending: tuple[int, str] | None = None  # the last decision, awaiting its outcome

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        facts = observation.facts
        if facts.get("done"):
            return None
        if phase == "talk":
            return await self._talk(facts, now) if self.talks and facts.get("nearby") else None
        if phase != "move":
            return None
        self._remember(facts.get("last"))
        caption = describe(facts["visible"]) if self.sight == "caption" else None
        situation = Situation(
            setting=str(facts["setting"]),
            task=str(facts["task"]),
            pose=facts["pose"],
            history=tuple(self.history),
            caption=caption,
            messages=tuple(facts.get("messages") or ()),
        )
        image = facts["image"] if self.sight == "vlm" else None
        purpose = PURPOSE_VLM if self.sight == "vlm" else PURPOSE_CAPTION
        request = Request(
            messages=decision_messages(situation, image),
            fallback=FALLBACK,
            max_tokens=self.max_tokens,
            seed=self.seed,
            purpose=purpose,
            agent=self.id,
        )
        completion = await self.model.complete(request)
        step = int(facts["step"])
        if self.sink is not None:
            decided = model_decision(
                purpose,
                flatten(completion.text, 80),
                completion,
                parsed=None,  # free text: the world's interpreter reads it (see the action)
                step=step,
                extra={
                    "image": facts.get("image_path"),
                    "caption": caption,
                    "latency_s": round(completion.latency_s, 4),
                    "nudged": situation.nudged,
                    "mind": self.sight,
                    "cut": completion.usage.completion_tokens >= self.max_tokens,
                },
            )
            self.sink.emit(decided, t=now, agent=self.id)
        self._pending = (step - 1, completion.text)
        return Action("reply", flatten(completion.text, 80), args={"text": completion.text})

    def _remember(self, last: Mapping[str, Any] | None) -> None:
        if self._pending is None or last is None:
            return
        step, said = self._pending
        entry = Entry(step, said, str(last["outcome"]), dict(last["pose"]), bool(last["idle"]))
        self.history = [*self.history, entry][-self.size :] if self.size else []
        self._pending = None

    async def _talk(self, facts: Mapping[str, Any], now: datetime) -> Action | None:
        request = Request(
            messages=talk_messages(str(facts["setting"]), str(facts["task"]), facts["nearby"], ()),
            fallback="",
            max_tokens=60,
            seed=self.seed,
            purpose=PURPOSE_TALK,
            agent=self.id,
        )
        completion = await self.model.complete(request)
        if is_silence(completion.text):
            return None
        return Action(
            "say", flatten(completion.text, 80), args={"text": flatten(completion.text, 200)}
        )

    def state(self) -> dict[str, Any]:
        return {
            "history": [
                {
                    "step": e.step,
                    "said": e.said,
                    "outcome": e.outcome,
                    "pose": dict(e.pose),
                    "idle": e.idle,
                }
                for e in self.history
            ],
            "pending": list(self._pending) if self._pending else None,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.history = [
            Entry(
                int(e["step"]), str(e["said"]), str(e["outcome"]), dict(e["pose"]), bool(e["idle"])
            )
            for e in state.get("history", [])
        ]
        pending = state.get("pending")
        self._pending = (int(pending[0]), str(pending[1])) if pending else None
