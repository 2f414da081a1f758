"""The lab's settings and its conditions: the source's five, and the seed-only library."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from simulacra.embed import EmbedderKind
from simulacra.errors import UserError
from simulacra.lab.sandbox import SandboxLimits


class LabConfig(BaseModel):
    """Defaults are the source's: 5 inner tries, 3 outer attempts, at most 10 candidates,
    a lint every 10 memory changes, a pause after 10 iterations without one."""

    model_config = ConfigDict(extra="forbid")

    inner_tries: int = Field(default=5, ge=1, le=10)
    outer_attempts: int = Field(default=3, ge=1, le=10)
    candidates: int = Field(default=10, ge=1, le=10)
    lint_every: int = Field(default=10, ge=1, description="memory changes between lints")
    idle_limit: int = Field(default=10, ge=1, description="iterations without a memory change")
    # Metadata is short and plentiful (the bench indexes 20,000 entries): the fast embedder.
    embedder: EmbedderKind = "model2vec"
    seed: int = 0
    sandbox: SandboxLimits = Field(default_factory=SandboxLimits)


@dataclass(frozen=True)
class Condition:
    name: str
    procedural: bool  # skills retrieved and loaded
    semantic: bool  # pages retrieved and loaded
    framework: bool  # critic, inner retries and outer attempts
    seed_only: bool = False  # memory is the seed alone, not the library given

    @property
    def memory(self) -> bool:
        return self.procedural or self.semantic


CONDITIONS = {
    c.name: c
    for c in (
        Condition("full", True, True, True),
        Condition("procedural", True, False, True),
        Condition("semantic", False, True, True),
        Condition("framework", False, False, True),
        Condition("vanilla", False, False, False),
        # The full system on a library made from the seed alone: beside `full`, what
        # learning added.
        Condition("seed", True, True, True, seed_only=True),
    )
}


class UnknownCondition(UserError):
    """A condition name that is not one of CONDITIONS."""


def condition(name: str) -> Condition:
    found = CONDITIONS.get(name)
    if found is None:
        raise UnknownCondition(f"--condition {name}: unknown; allowed: {', '.join(CONDITIONS)}")
    return found
