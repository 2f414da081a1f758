"""Scenarios: the configuration a run starts from, loaded and validated."""

from simulacra.experiments.config import Scenario
from simulacra.experiments.load import (
    ScenarioError,
    apply_override,
    load_scenario,
    validate_scenario,
)

__all__ = ["Scenario", "ScenarioError", "apply_override", "load_scenario", "validate_scenario"]
