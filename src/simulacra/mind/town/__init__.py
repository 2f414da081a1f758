"""The town's minds: the generative agent (persona, planning, perception, reaction, dialogue,
corrections, interviews) and the routine agent, its classical baseline, with their prompts
and the scripted responders that keep the town sociable."""

from simulacra.mind.town.agent import Agent
from simulacra.mind.town.converse import Conversation, Utterance, converse
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.react import Reaction
from simulacra.mind.town.routine_agent import News, RoutineAgent
from simulacra.mind.town.schedule import PlanStep

__all__ = [
    "Agent",
    "Conversation",
    "News",
    "Persona",
    "PlanStep",
    "Reaction",
    "RoutineAgent",
    "Utterance",
    "converse",
]
