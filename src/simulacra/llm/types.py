"""The language-model interface every backend and every caller shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


def chat(system: str, user: str) -> tuple[Message, ...]:
    """The common two-message prompt: instructions, then the situation."""
    return (Message("system", system), Message("user", user))


@dataclass(frozen=True)
class Request:
    """One call to a language model.

    `output` is the pydantic model the answer must validate against (None for free text).
    `fallback` is what the caller receives, flagged, when every attempt fails: a model fault
    never crashes a run, but it is never silent either.
    """

    messages: Sequence[Message]
    output: type[BaseModel] | None = None
    fallback: BaseModel | str | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    seed: int = 0
    purpose: str = "text"
    agent: str | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True)
class RawReply:
    """What a backend returns before any validation."""

    text: str
    usage: Usage


@dataclass(frozen=True)
class Completion:
    """What a call produced. `value` is the validated output (or the fallback when `fallback`)."""

    text: str
    value: BaseModel | None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    cached: bool = False
    attempts: int = 1
    fallback: bool = False
    model: str = ""
    error: str | None = None


class Unreachable(Exception):
    """A backend fault meaning the model never answered: no connection, or no reply in time."""


@runtime_checkable
class LanguageModel(Protocol):
    name: str

    async def complete(self, request: Request) -> Completion: ...
