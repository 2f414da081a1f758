"""The wrapper every backend goes through: concurrency, timeout, validation, retries, fallback,
cache and accounting. Backends only turn messages into text."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel

from simulacra.llm.accounting import Ledger
from simulacra.llm.cache import cache_key
from simulacra.llm.structured import OutputError, output_schema, parse_output
from simulacra.llm.types import Completion, RawReply, Request, Usage


class Backend(Protocol):
    """Turns a request into raw text. `schema` is the JSON schema to constrain decoding to."""

    name: str

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply: ...


class ResponseCache(Protocol):
    def get(self, key: str) -> RawReply | None: ...
    def put(self, key: str, reply: RawReply) -> None: ...


class ModelFailure(RuntimeError):
    """Every attempt failed and the request declared no fallback."""


CallHook = Callable[[Request, Completion], None]


class Gateway:
    """A LanguageModel made of a backend and the wrappers around it."""

    def __init__(
        self,
        backend: Backend,
        *,
        attempts: int = 3,
        timeout_s: float = 60.0,
        concurrency: int = 8,
        cache: ResponseCache | None = None,
        ledger: Ledger | None = None,
        on_call: CallHook | None = None,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.backend = backend
        self.name = backend.name
        self.attempts = attempts
        self.timeout_s = timeout_s
        self.concurrency = concurrency
        self.cache = cache
        self.ledger = ledger if ledger is not None else Ledger()
        self.on_call = on_call
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _limit(self) -> asyncio.Semaphore:
        # A semaphore belongs to one event loop; tests and CLIs may run several loops in turn.
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._loop = loop
        return self._semaphore

    async def complete(self, request: Request) -> Completion:
        started = time.perf_counter()
        schema = output_schema(request.output) if request.output is not None else None
        usage = Usage()
        errors: list[str] = []
        for attempt in range(1, self.attempts + 1):
            # A retry with the same seed would repeat the same mistake; the seed moves per attempt.
            seed = request.seed + attempt - 1
            key = self._key(request, schema, seed)
            reply = self.cache.get(key) if self.cache is not None else None
            cached = reply is not None
            if reply is None:
                try:
                    async with self._limit():
                        reply = await asyncio.wait_for(
                            self.backend.generate(request, schema, seed), self.timeout_s
                        )
                except TimeoutError:
                    errors.append(f"attempt {attempt}: timed out after {self.timeout_s:g} s")
                    continue
                except Exception as exc:  # a backend fault is retried, then falls back
                    errors.append(f"attempt {attempt}: {type(exc).__name__}: {exc}")
                    continue
            usage = usage + reply.usage
            try:
                value = self._parse(reply.text, request.output)
            except OutputError as exc:
                errors.append(f"attempt {attempt}: {exc}")
                continue
            if self.cache is not None and not cached:
                self.cache.put(key, reply)
            return self._finish(
                request,
                Completion(
                    text=reply.text,
                    value=value,
                    usage=usage,
                    latency_s=time.perf_counter() - started,
                    cached=cached,
                    attempts=attempt,
                    model=self.name,
                ),
            )
        return self._finish(request, self._fallback(request, usage, started, errors))

    def _parse(self, text: str, output: type[BaseModel] | None) -> BaseModel | None:
        if output is None:
            if not text.strip():
                raise OutputError("empty reply")
            return None
        return parse_output(text, output)

    def _fallback(
        self, request: Request, usage: Usage, started: float, errors: list[str]
    ) -> Completion:
        if request.fallback is None:
            raise ModelFailure(
                f"{self.name}: {request.purpose} failed {self.attempts} times and declares no "
                f"fallback: {'; '.join(errors)}"
            )
        fallback = request.fallback
        text = fallback if isinstance(fallback, str) else fallback.model_dump_json()
        value = None if isinstance(fallback, str) else fallback
        return Completion(
            text=text,
            value=value,
            usage=usage,
            latency_s=time.perf_counter() - started,
            attempts=self.attempts,
            fallback=True,
            model=self.name,
            error="; ".join(errors),
        )

    def _finish(self, request: Request, completion: Completion) -> Completion:
        self.ledger.record(request, completion)
        if self.on_call is not None:
            self.on_call(request, completion)
        return completion

    def _key(self, request: Request, schema: dict[str, Any] | None, seed: int) -> str:
        return cache_key(self.name, request, schema, seed)
