"""A binding's second part: the world's measures read back from the log, its headline
figures, and its signature, the groups of figures a sweep compares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from simulacra.experiments.scenario import Scenario
from simulacra.runlog import Event


class Measures:
    """What a binding measures; a world with no measures of its own keeps these defaults."""

    reads: ClassVar[frozenset[str]] = frozenset()  # the event kinds `measures` reads
    # The headline figures that characterise a run of this world, in named groups: what a
    # sweep shows side by side across models and minds.
    signature: ClassVar[dict[str, tuple[str, ...]]] = {}
    # Headline figures that are shares, with their full scale (1, or 100 for a percentage):
    # their intervals are Wilson's, which stay inside the scale.
    shares: ClassVar[dict[str, float]] = {}

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        """The world's own sections of metrics.json, read back from the log."""
        return {}

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        """The few numbers a sweep compares: logged as `metric` events at the end of a run."""
        return {}

    def share_scales(self) -> dict[str, float]:
        """The world's shares and every run's: the fallback rate. (`aware_final` counts agents,
        so a run where 0 or 1 is aware must not get a share's interval.)"""
        return {**self.shares, "fallback_rate": 1.0}

    def signature_groups(self) -> dict[str, tuple[str, ...]]:
        """The world's signature, and what every run adds: the model's fallbacks and calls."""
        return {**self.signature, "model": ("fallback_rate", "calls_per_agent_tick")}
