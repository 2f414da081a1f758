"""The grid agent of SD-AgentFoundry-2D: its two prompts, its memory and its scripted stand-in."""

from simulacra.mind.grid.agent import GridAgent, GridIdentity
from simulacra.mind.grid.prompts import (
    AgentView,
    MessageChoice,
    MoveChoice,
    action_prompt,
    message_prompt,
)
from simulacra.mind.grid.recall import BoundedRecall, Recall, StreamRecall
from simulacra.mind.grid.scripted import script_grid_agents

__all__ = [
    "AgentView",
    "BoundedRecall",
    "GridAgent",
    "GridIdentity",
    "MessageChoice",
    "MoveChoice",
    "Recall",
    "StreamRecall",
    "action_prompt",
    "message_prompt",
    "script_grid_agents",
]
