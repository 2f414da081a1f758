"""The language-model interface every backend and every caller shares."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

Role = Literal["system", "user", "assistant"]
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")


@dataclass(frozen=True)
class TextPart:
    """Text inside a message whose content has several parts."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """An image inside a message: encoded bytes and their media type. Backends that take
    images send it as an OpenAI-style `image_url` part with a base64 data URI."""

    data: bytes = field(repr=False)
    media_type: str = "image/png"

    def __post_init__(self) -> None:
        if self.media_type not in IMAGE_TYPES:
            raise ValueError(
                f"image media type {self.media_type!r} is not one of {', '.join(IMAGE_TYPES)}"
            )
        if not self.data:
            raise ValueError("an image part needs its bytes; got none")

    def data_uri(self) -> str:
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    @property
    def sha256(self) -> str:
        """The image's digest: what a cache key and a log keep instead of the bytes."""
        return hashlib.sha256(self.data).hexdigest()


Part = TextPart | ImagePart


@dataclass(frozen=True)
class Message:
    """One message. `content` is text, or parts (text and images) in order."""

    role: Role
    content: str | tuple[Part, ...]

    @property
    def text(self) -> str:
        """The message's text: its content, or its text parts joined by blank lines."""
        if isinstance(self.content, str):
            return self.content
        return "\n\n".join(p.text for p in self.content if isinstance(p, TextPart))

    @property
    def images(self) -> tuple[ImagePart, ...]:
        if isinstance(self.content, str):
            return ()
        return tuple(p for p in self.content if isinstance(p, ImagePart))


def chat(system: str, user: str) -> tuple[Message, ...]:
    """The common two-message prompt: instructions, then the situation."""
    return (Message("system", system), Message("user", user))


def with_images(message: Message, *images: ImagePart) -> Message:
    """`message` with `images` placed before its text, as vision models expect them."""
    return Message(message.role, (*images, TextPart(message.text)))


def has_images(messages: Sequence[Message]) -> bool:
    return any(m.images for m in messages)


@dataclass(frozen=True)
class Request:
    """One call to a language model.

    `output` is the pydantic model the answer must validate against (None for free text).
    `fallback` is what the caller receives, flagged, when every attempt fails: a model fault
    never crashes a run, but it is never silent either. `probe` marks a call that measures
    (an interview during a run): a backend must leave nothing of it that later calls could
    see (the embedded model keeps it out of the agents' prompt caches).
    """

    messages: Sequence[Message]
    output: type[BaseModel] | None = None
    fallback: BaseModel | str | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    seed: int = 0
    purpose: str = "text"
    agent: str | None = None
    probe: bool = False


@dataclass(frozen=True)
class Usage:
    """Tokens of a call. `cached_prompt_tokens` of the prompt were served from the server's
    prompt cache (its KV cache) rather than processed again."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
        )

    @classmethod
    def read(cls, usage: Any) -> Usage:
        """The `usage` object of an OpenAI-style chat completion (llama.cpp, vLLM and OpenAI
        report cached prompt tokens under prompt_tokens_details)."""
        if not isinstance(usage, dict):
            return cls()
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else 0
        return cls(
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
            int(cached or 0),
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
