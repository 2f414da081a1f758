"""The commuter's two memories (source 4.2-4.3).

Short-term memory is episodic: one (plan, outcome, reflection) per day of the current cycle,
cleared when the cycle ends. Long-term memory is semantic: the patterns abstracted at the end
of each cycle, kept for the whole run.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulacra.commuter.plans import DayPlan
from simulacra.worlds.commute import TripOutcome


@dataclass(frozen=True)
class Episode:
    day: int
    plan: DayPlan
    outcome: TripOutcome
    reflection: str

    def render(self) -> str:
        return f"Day {self.day}: {self.outcome.describe()}. Reflection: {self.reflection}"


@dataclass(frozen=True)
class Pattern:
    week: int
    text: str

    def render(self) -> str:
        return f"Week {self.week}: {self.text}"


class ShortTermMemory:
    """Episodes of the current cycle, oldest first."""

    def __init__(self) -> None:
        self.episodes: list[Episode] = []

    def add(self, episode: Episode) -> None:
        self.episodes.append(episode)

    def clear(self) -> None:
        self.episodes = []

    def render(self) -> str:
        return "\n".join(e.render() for e in self.episodes) or "(nothing yet this week)"

    def __len__(self) -> int:
        return len(self.episodes)


class LongTermMemory:
    """Patterns abstracted from past cycles; prompts see the latest `shown`."""

    def __init__(self, shown: int = 4) -> None:
        self.patterns: list[Pattern] = []
        self.shown = shown

    def add(self, pattern: Pattern) -> None:
        self.patterns.append(pattern)

    def render(self) -> str:
        latest = self.patterns[-self.shown :]
        return "\n".join(p.render() for p in latest) or "(no past weeks)"

    def __len__(self) -> int:
        return len(self.patterns)
