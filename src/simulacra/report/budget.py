"""Where the model time and tokens went: llm.call events summed per purpose or per agent."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from simulacra.runlog import Event


@dataclass(frozen=True)
class BudgetLine:
    key: str  # a purpose ("plan.daily") or an agent id
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int  # of prompt_tokens, served from the server's prompt cache
    latency_s: float
    cached: int  # calls the response cache answered
    fallbacks: int
    errors: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def budget_lines(
    events: Iterable[Event], key: Callable[[Event], str | None]
) -> tuple[BudgetLine, ...]:
    """One line per key over the llm.call events, most calls first."""
    sums: dict[str, list[float]] = {}
    for event in events:
        if event.kind != "llm.call":
            continue
        name = key(event) or "(none)"
        data = event.data
        row = sums.setdefault(name, [0.0] * 8)
        for i, value in enumerate(
            (
                1,
                _number(data.get("prompt_tokens")),
                _number(data.get("completion_tokens")),
                _number(data.get("cached_prompt_tokens")),
                _number(data.get("latency_s")),
                1 if data.get("cached") else 0,
                1 if data.get("fallback") else 0,
                1 if data.get("error") else 0,
            )
        ):
            row[i] += value
    lines = [
        BudgetLine(name, int(c), int(p), int(o), int(k), round(lat, 3), int(h), int(f), int(e))
        for name, (c, p, o, k, lat, h, f, e) in sums.items()
    ]
    return tuple(sorted(lines, key=lambda line: (-line.calls, line.key)))


def total(lines: Iterable[BudgetLine]) -> BudgetLine:
    lines = list(lines)
    return BudgetLine(
        "total",
        calls=sum(line.calls for line in lines),
        prompt_tokens=sum(line.prompt_tokens for line in lines),
        completion_tokens=sum(line.completion_tokens for line in lines),
        cached_prompt_tokens=sum(line.cached_prompt_tokens for line in lines),
        latency_s=round(sum(line.latency_s for line in lines), 3),
        cached=sum(line.cached for line in lines),
        fallbacks=sum(line.fallbacks for line in lines),
        errors=sum(line.errors for line in lines),
    )


def by_purpose(event: Event) -> str | None:
    purpose = event.data.get("purpose")
    return str(purpose) if purpose else None


def by_agent(event: Event) -> str | None:
    return event.agent


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
