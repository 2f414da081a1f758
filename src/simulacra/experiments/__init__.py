"""Scenarios and what is done with them: the one scenario format, the run pipeline, sweeps."""

from simulacra.experiments.fork import fork
from simulacra.experiments.fork_plan import ForkError, read_interventions
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
    "ForkError",
    "InterviewError",
    "ResumeError",
    "RunFailed",
    "Scenario",
    "ScenarioError",
    "TooManyFallbacks",
    "apply_override",
    "fork",
    "interview",
    "load_scenario",
    "read_interventions",
    "resume",
    "run",
]
