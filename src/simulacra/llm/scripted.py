"""A deterministic, labelled stand-in for a language model: for tests and engine benchmarks.

Responders are registered per purpose. A purpose with no responder is answered with the
request's declared fallback, so that any pipeline runs end to end. Every completion it makes
carries the model name "scripted", and so does every run that used it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from simulacra.llm.gateway import Gateway
from simulacra.llm.types import RawReply, Request, Usage

Responder = Callable[[Request], "BaseModel | dict[str, Any] | str"]


IMAGE_TOKENS = 256  # what a vision model's encoder typically spends on one small image


def _approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ScriptedBackend:
    name = "scripted"

    def __init__(self) -> None:
        self._responders: dict[str, Responder] = {}

    def on(self, purpose: str, responder: Responder) -> None:
        """Answer requests whose purpose is `purpose`, or starts with `purpose.`"""
        self._responders[purpose] = responder

    def _responder(self, purpose: str) -> Responder | None:
        parts = purpose.split(".")
        for i in range(len(parts), 0, -1):
            found = self._responders.get(".".join(parts[:i]))
            if found is not None:
                return found
        return None

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        responder = self._responder(request.purpose)
        answer: BaseModel | dict[str, Any] | str
        if responder is not None:
            answer = responder(request)
        elif request.fallback is not None:
            answer = request.fallback
        else:
            answer = "(scripted: no responder)" if request.output is None else {}
        if isinstance(answer, BaseModel):
            text = answer.model_dump_json()
        elif isinstance(answer, dict):
            text = json.dumps(answer)
        else:
            text = answer
        prompt = sum(
            _approx_tokens(m.text) + IMAGE_TOKENS * len(m.images) for m in request.messages
        )
        return RawReply(text, Usage(prompt, _approx_tokens(text)))


class ScriptedModel(Gateway):
    """The scripted backend behind the usual wrappers: `model.on("plan.daily", responder)`."""

    def __init__(self, **options: Any) -> None:
        self.script = ScriptedBackend()
        super().__init__(self.script, **options)

    def on(self, purpose: str, responder: Responder) -> None:
        self.script.on(purpose, responder)
