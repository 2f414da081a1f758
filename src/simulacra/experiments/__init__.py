"""Scenarios and what is done with them: the one scenario format, the run pipeline, sweeps."""

from simulacra.experiments.interview import InterviewError, interview
from simulacra.experiments.load import ScenarioError, apply_override, load_scenario
from simulacra.experiments.pipeline import (
    ResumeError,
    RunFailed,
    TooManyFallbacks,
    resume,
    run,
)
from simulacra.experiments.scenario import Scenario

__all__ = [
    "InterviewError",
    "ResumeError",
    "RunFailed",
    "Scenario",
    "ScenarioError",
    "TooManyFallbacks",
    "apply_override",
    "interview",
    "load_scenario",
    "resume",
    "run",
]
