"""The source's ablation conditions: which cognitive modules an agent runs with."""

from __future__ import annotations

from enum import StrEnum


class Ablation(StrEnum):
    FULL = "full"
    NO_REFLECTION = "no_reflection"
    NO_REFLECTION_NO_PLANNING = "no_reflection_no_planning"
    NO_MEMORY = "no_observation_reflection_planning"

    @property
    def reflects(self) -> bool:
        return self is Ablation.FULL

    @property
    def plans(self) -> bool:
        return self in (Ablation.FULL, Ablation.NO_REFLECTION)

    @property
    def remembers(self) -> bool:
        """Observations and dialogue are stored and retrieved at all."""
        return self is not Ablation.NO_MEMORY

    @property
    def recalled_kinds(self) -> tuple[str, ...] | None:
        """Record kinds retrieval may return; None means every kind. An inner thought (a
        planted intention, what news means for plans) is the agent's own, not an inference
        that reflection draws: every condition with a memory recalls it."""
        if self is Ablation.FULL:
            return None
        if self is Ablation.NO_REFLECTION:
            return ("observation", "dialogue", "plan", "thought")
        if self is Ablation.NO_REFLECTION_NO_PLANNING:
            return ("observation", "dialogue", "thought")
        return ()
