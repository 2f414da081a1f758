"""The wrapper every backend goes through: concurrency, timeout, validation, retries, fallback,
cache and accounting. Backends only turn messages into text."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from pydantic import BaseModel

from simulacra.errors import UserError
from simulacra.llm.accounting import Ledger
from simulacra.llm.cache import cache_key
from simulacra.llm.structured import OutputError, output_schema, parse_output
from simulacra.llm.types import Completion, RawReply, Request, Unreachable, Usage


class Backend(Protocol):
    """Turns a request into raw text. `schema` is the JSON schema to constrain decoding to.
    A backend that runs in the caller's process (`in_process = True`) is bounded by the
    request's max_tokens, and the gateway puts no wall-clock limit on it."""

    name: str

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply: ...


class ResponseCache(Protocol):
    def get(self, key: str) -> RawReply | None: ...
    def put(self, key: str, reply: RawReply) -> None: ...
    def put_failure(self, key: str, error: str) -> None: ...


class ModelFailure(RuntimeError):
    """The model could not answer: every attempt failed and the request declared no
    fallback, or a backend refused for a reason no retry can fix (a replay miss)."""


class ModelUnreachable(ModelFailure, UserError):
    """Calls in a row that never reached the model: the server is down or hangs. `where` is
    its address and `last` the last attempt's fault, for callers that say it their way."""

    def __init__(self, message: str, where: str = "", last: str = "") -> None:
        super().__init__(message)
        self.where, self.last = where, last


CallHook = Callable[[Request, Completion], None]

RETRY_TEMPERATURE = 0.7
# The context window of a model that does not say its own and was given none: prompts that
# fill the context (retrieval, reflection) are sized to it. 8,192 tokens is about the least a
# served chat model takes today; the source's GPT-3.5 took 4,096.
DEFAULT_CONTEXT_TOKENS = 8192


def _attempt_request(request: Request, attempt: int) -> Request:
    """The request as sent on this attempt. Greedy decoding ignores the seed, so a retry of a
    temperature-0 request samples instead of repeating the same mistake."""
    if attempt == 1 or request.temperature > 0:
        return request
    return replace(request, temperature=RETRY_TEMPERATURE)


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
        temperature: float | None = None,
        max_tokens: int | None = None,
        unreachable_after: int | None = None,
        context_tokens: int | None = None,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        # The model's window: the backend's own where it knows it (the embedded model's
        # slot), else the configured one (a served model's), else the default.
        own = getattr(backend, "context_tokens", None)
        self.context_tokens: int = own or context_tokens or DEFAULT_CONTEXT_TOKENS
        # Calls in a row whose every attempt failed to connect or timed out before the model
        # is declared unreachable (None: never); any answer, even a bad one, resets the count.
        self.unreachable_after = unreachable_after
        self.silent_calls = 0
        self.backend = backend
        self.name = backend.name
        self.attempts = attempts
        self.timeout_s = timeout_s
        # A model in this process has no network to wait for: each call ends within its
        # max_tokens, and a wall-clock limit would make what agents do depend on the load.
        self._timeout_s = None if getattr(backend, "in_process", False) else timeout_s
        self.concurrency = concurrency
        self.cache = cache
        self.ledger = ledger if ledger is not None else Ledger()
        self.on_call = on_call
        # A scenario's sampling settings, when it gives them, stand for every prompt's own.
        self.sampling: dict[str, Any] = {
            k: v
            for k, v in (("temperature", temperature), ("max_tokens", max_tokens))
            if v is not None
        }
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # Set, it maps every request's seed to another: a fork's replicate draws afresh.
        self.reseed: Callable[[int], int] | None = None

    # What `become` takes over: everything that decides how a request is answered.
    _ANSWERING = (
        "backend",
        "name",
        "attempts",
        "timeout_s",
        "_timeout_s",
        "concurrency",
        "cache",
        "sampling",
        "context_tokens",
        "unreachable_after",
    )

    def become(self, other: Gateway) -> None:
        """From now on answer as `other` does (a fork's model from its fork point on, when
        the prefix was answered from the parent's record); the ledger and call hook stay."""
        for name in self._ANSWERING:
            setattr(self, name, getattr(other, name))
        self.silent_calls = 0
        self._semaphore = self._loop = None

    def _limit(self) -> asyncio.Semaphore:
        # A semaphore belongs to one event loop; tests and CLIs may run several loops in turn.
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._loop = loop
        return self._semaphore

    async def complete(self, request: Request) -> Completion:
        started = time.perf_counter()
        if self.sampling:
            request = replace(request, **self.sampling)
        if self.reseed is not None:
            request = replace(request, seed=self.reseed(request.seed))
        schema = output_schema(request.output) if request.output is not None else None
        usage = Usage()
        errors: list[str] = []
        silent = 0  # attempts that got no answer at all
        for attempt in range(1, self.attempts + 1):
            # A retry with the same seed would repeat the same mistake; the seed moves per attempt.
            seed = request.seed + attempt - 1
            sent = _attempt_request(request, attempt)
            key = self._key(sent, schema, seed) if self.cache is not None else ""
            reply = self.cache.get(key) if self.cache is not None else None
            cached = reply is not None
            if reply is None:
                try:
                    reply = await self._generate(sent, schema, seed)
                    # Let the call that was waiting for this slot go out before the caller's
                    # own work resumes: otherwise a burst of replies is handled, and its
                    # callers run, before any waiting call is sent (a phase's CPU adds to
                    # its wall time instead of overlapping the model's).
                    await asyncio.sleep(0)
                except ModelFailure:
                    raise
                except Exception as exc:  # a backend fault is retried, then falls back
                    silent += isinstance(exc, TimeoutError | Unreachable)
                    error = _describe_fault(exc, self.timeout_s)
                    errors.append(f"attempt {attempt}: {error}")
                    if self.cache is not None:
                        self.cache.put_failure(key, error)
                    continue
                # Invalid replies are stored too, so that a rerun or a replay repeats this attempt.
                if self.cache is not None:
                    self.cache.put(key, reply)
            self.silent_calls = 0
            usage = usage + reply.usage
            try:
                value = self._parse(reply.text, request.output)
            except OutputError as exc:
                errors.append(f"attempt {attempt}: {exc}")
                continue
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
                    error="; ".join(errors) or None,  # why earlier attempts failed, if any
                ),
            )
        if silent == self.attempts:
            self._count_silence(errors[-1])
        return self._finish(request, self._fallback(request, usage, started, errors))

    def _count_silence(self, error: str) -> None:
        self.silent_calls += 1
        if self.unreachable_after is None or self.silent_calls < self.unreachable_after:
            return
        where = getattr(self.backend, "where", self.name)
        raise ModelUnreachable(
            f"the model {self.name} at {where} did not answer {self.silent_calls} calls in a "
            f"row (each tried {self.attempts} times; last: {error}); check that its server is "
            "up at that address, or give model.unreachable_after a larger number",
            where,
            error,
        )

    async def _generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        # asyncio.timeout, unlike wait_for, costs no extra task per call.
        async with self._limit(), asyncio.timeout(self._timeout_s):
            return await self.backend.generate(request, schema, seed)

    async def aclose(self) -> None:
        """Release the backend's connections, if it holds any."""
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

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


def _describe_fault(exc: Exception, timeout_s: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout_s:g} s"
    return f"{type(exc).__name__}: {exc}"
