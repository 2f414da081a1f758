"""The grid agent of SD-AgentFoundry-2D: its two prompts (the source's), its memory and its
scripted stand-in; and the rule agent, a classical baseline that calls no model."""

from simulacra.mind.grid.agent import GridAgent, GridIdentity
from simulacra.mind.grid.prompts import (
    EXTRAS,
    MAX_MESSAGE_WORDS,
    AgentView,
    Extra,
    GridOptions,
    MessageChoice,
    MoveChoice,
    action_prompt,
    message_prompt,
)
from simulacra.mind.grid.recall import BoundedRecall, Recall, StreamRecall
from simulacra.mind.grid.rule import RuleAgent
from simulacra.mind.grid.scripted import script_grid_agents

__all__ = [
    "EXTRAS",
    "MAX_MESSAGE_WORDS",
    "AgentView",
    "BoundedRecall",
    "Extra",
    "GridAgent",
    "GridIdentity",
    "GridOptions",
    "MessageChoice",
    "MoveChoice",
    "Recall",
    "RuleAgent",
    "StreamRecall",
    "action_prompt",
    "message_prompt",
    "script_grid_agents",
]
