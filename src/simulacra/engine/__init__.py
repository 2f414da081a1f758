"""The one engine: clock, phases, concurrent model calls in a fixed event order, interventions
and interviews, checkpoints and progress, for any world and any mind."""

from simulacra.engine.checkpoint import CheckpointError, Checkpoints, copy_database
from simulacra.engine.clock import Calendar, Clock
from simulacra.engine.control import Control, Status
from simulacra.engine.engine import Engine, Progress, ProgressHook
from simulacra.engine.interventions import Intervention, Interventions, InterviewPlan
from simulacra.engine.progress import console_progress
from simulacra.engine.sink import AgentSink, EventRouter

__all__ = [
    "AgentSink",
    "Calendar",
    "CheckpointError",
    "Checkpoints",
    "Clock",
    "Control",
    "Engine",
    "EventRouter",
    "Intervention",
    "Interventions",
    "InterviewPlan",
    "Progress",
    "ProgressHook",
    "Status",
    "console_progress",
    "copy_database",
]
