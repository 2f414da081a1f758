"""What a run may spend on its model (`model.budget`) and what tokens cost (`model.price`).

A budget caps calls, tokens, dollars and wall-clock hours; the run checks it at the end of
every tick and stops there (with a checkpoint) once one is reached. Calls, tokens and dollars
are counted from the ledger, so a run stops at the same tick on every machine; wall time is
the one budget that makes where a run stops depend on the machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.llm.accounting import Tally


class Price(BaseModel):
    """US dollars per million tokens: prompt tokens, prompt tokens a prompt cache served, and
    completion tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, description="dollars per million prompt tokens")
    cached_input: float | None = Field(
        None, ge=0, description="dollars per million cached prompt tokens; none: as input"
    )
    output: float = Field(ge=0, description="dollars per million completion tokens")

    def cost(self, prompt: float, cached: float, completion: float) -> float:
        """Dollars for `prompt` tokens (of which `cached` came from a cache) and `completion`."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        fresh = max(0.0, prompt - cached)
        return (fresh * self.input + cached * cached_rate + completion * self.output) / 1e6


class Budget(BaseModel):
    """Limits on what a run (or a sweep) spends; any left out is not limited."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int | None = Field(None, ge=1, description="model calls")
    tokens: int | None = Field(None, ge=1, description="prompt and completion tokens")
    dollars: float | None = Field(None, gt=0, description="cost at model.price")
    hours: float | None = Field(
        None,
        gt=0,
        description="wall-clock hours; the one limit that makes where a run stops depend on "
        "the machine",
    )

    @model_validator(mode="after")
    def _limits_something(self) -> Budget:
        if (self.calls, self.tokens, self.dollars, self.hours) == (None, None, None, None):
            raise ValueError("give at least one of calls, tokens, dollars and hours")
        return self


@dataclass(frozen=True)
class Spent:
    """What a run has spent so far."""

    calls: int
    tokens: int
    dollars: float | None  # None without a price
    hours: float

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "calls": self.calls,
            "tokens": self.tokens,
            "dollars": None if self.dollars is None else round(self.dollars, 6),
            "hours": round(self.hours, 6),
        }


def spent(tally: Tally, price: Price | None, wall_s: float) -> Spent:
    dollars = None
    if price is not None:
        dollars = price.cost(
            tally.prompt_tokens, tally.cached_prompt_tokens, tally.completion_tokens
        )
    return Spent(tally.calls, tally.tokens, dollars, wall_s / 3600)


def reached(budget: Budget, spend: Spent) -> str | None:
    """The first limit `spend` has reached, in words ("calls: 120 of 100"), or None."""
    pairs: list[tuple[str, float | None, float | None]] = [
        ("calls", budget.calls, spend.calls),
        ("tokens", budget.tokens, spend.tokens),
        ("dollars", budget.dollars, spend.dollars),
        ("hours", budget.hours, spend.hours),
    ]
    for name, limit, value in pairs:
        if limit is not None and value is not None and value >= limit:
            return f"{name}: {_figure(value)} spent of {_figure(limit)}"
    return None


def _figure(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"


class BudgetReached(Exception):
    """A run reached a limit of its budget at the end of a tick; `limit` says which."""

    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit
