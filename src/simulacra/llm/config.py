"""`ModelConfig`: the model section of a scenario, validated before anything loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.llm.budget import Budget, Price
from simulacra.llm.embedded import Repetition
from simulacra.llm.gateway import Gateway
from simulacra.llm.spec import check_spec, load_model


class ModelConfig(BaseModel):
    """Which language model a run uses and the limits it runs under."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(
        "embedded",
        description='"embedded", "openai:<base_url>?model=<name>", "scripted" or "replay:<dir>"',
    )
    timeout_s: float = Field(
        60.0,
        gt=0,
        description="seconds before one attempt at a served model is abandoned; the embedded "
        "model has none (a call ends within its max_tokens, however busy the machine)",
    )
    attempts: int = Field(3, ge=1, le=10, description="tries before the declared fallback")
    concurrency: int = Field(8, ge=1, le=4096, description="calls in flight at once")
    cache: Path | None = Field(None, description="SQLite response cache; none to always ask")
    temperature: float | None = Field(
        None, ge=0, le=2, description="sampling temperature for every call; none: each prompt's"
    )
    max_tokens: int | None = Field(
        None, ge=1, description="completion tokens for every call; none: each prompt's budget"
    )
    repetition: Repetition | None = Field(
        None,
        description="the embedded model's repeat penalty and DRY sampler (served models keep "
        "their own sampling); none: both off",
    )
    context_tokens: int | None = Field(
        None,
        ge=512,
        description="the served model's context window in tokens (retrieval and reflection "
        "fill it, as the source does); the embedded model knows its own (2,048 a slot); "
        "none: 8,192",
    )
    unreachable_after: int = Field(
        10,
        ge=1,
        description="calls in a row that fail to connect or time out before the run stops",
    )
    max_fallback_rate: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of calls answered by the declared fallback above which a finished "
        "run is reported as a failure",
    )
    price: Price | None = Field(
        None, description="dollars per million input, cached input and output tokens"
    )
    budget: Budget | None = Field(
        None, description="calls, tokens, dollars or hours at which the run stops, at a tick's end"
    )

    @model_validator(mode="after")
    def _dollars_need_a_price(self) -> ModelConfig:
        if self.budget is not None and self.budget.dollars is not None and self.price is None:
            raise ValueError("budget.dollars needs model.price (dollars per million tokens)")
        return self

    @field_validator("spec")
    @classmethod
    def _spec_is_well_formed(cls, spec: str) -> str:
        return check_spec(spec)

    def load(self, **options: Any) -> Gateway:
        """The configured model; `options` (on_call, ledger, ...) go to load_model."""
        cache = None if self.spec.startswith("replay:") else self.cache
        return load_model(
            self.spec,
            timeout_s=self.timeout_s,
            attempts=self.attempts,
            concurrency=self.concurrency,
            cache=cache,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            repetition=self.repetition,
            unreachable_after=self.unreachable_after,
            context_tokens=self.context_tokens,
            **options,
        )
