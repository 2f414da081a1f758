"""Scenarios and what is done with them: the one scenario format, the run pipeline, sweeps."""

from simulacra.experiments.load import ScenarioError, apply_override, load_scenario
from simulacra.experiments.pipeline import interview, resume, run
from simulacra.experiments.scenario import Scenario

__all__ = [
    "Scenario",
    "ScenarioError",
    "apply_override",
    "interview",
    "load_scenario",
    "resume",
    "run",
]
