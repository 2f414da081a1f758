"""Where model time and tokens go: counters per purpose and per agent."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from simulacra.llm.types import Completion, Request


@dataclass
class Tally:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    latency_s: float = 0.0
    cache_hits: int = 0
    retries: int = 0
    fallbacks: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.usage.prompt_tokens
        self.completion_tokens += completion.usage.completion_tokens
        self.cached_prompt_tokens += completion.usage.cached_prompt_tokens
        self.latency_s += completion.latency_s
        self.cache_hits += int(completion.cached)
        self.retries += max(0, completion.attempts - 1)
        self.fallbacks += int(completion.fallback)


class Ledger:
    """Accumulates every completion under its purpose and its agent."""

    def __init__(self) -> None:
        self.total = Tally()
        self.by_purpose: defaultdict[str, Tally] = defaultdict(Tally)
        self.by_agent: defaultdict[str, Tally] = defaultdict(Tally)

    def record(self, request: Request, completion: Completion) -> None:
        self.total.add(completion)
        self.by_purpose[request.purpose].add(completion)
        self.by_agent[request.agent or "-"].add(completion)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": asdict(self.total),
            "by_purpose": {k: asdict(v) for k, v in sorted(self.by_purpose.items())},
            "by_agent": {k: asdict(v) for k, v in sorted(self.by_agent.items())},
        }
