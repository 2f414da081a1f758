"""The simulation engine: clock, loop, interventions, checkpoints, and the run entry points."""

from simulacra.engine.clock import Calendar, Clock
from simulacra.engine.loop import Progress, ProgressHook, Simulation
from simulacra.engine.run import agent_seed, interview_agent, resume_run, run_scenario

__all__ = [
    "Calendar",
    "Clock",
    "Progress",
    "ProgressHook",
    "Simulation",
    "agent_seed",
    "interview_agent",
    "resume_run",
    "run_scenario",
]
