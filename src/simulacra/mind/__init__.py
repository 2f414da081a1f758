"""The mind of a generative agent: persona, planning, perception, reaction, dialogue, interviews;
and the town's routine agent, a classical baseline that calls no model."""

from simulacra.core import InterviewAnswer
from simulacra.mind.ablation import Ablation
from simulacra.mind.agent import Agent
from simulacra.mind.context import call_seed
from simulacra.mind.converse import Conversation, Utterance, converse
from simulacra.mind.persona import Persona
from simulacra.mind.react import Reaction
from simulacra.mind.routine_agent import News, RoutineAgent
from simulacra.mind.schedule import PlanStep
from simulacra.runlog import EventSink

__all__ = [
    "Ablation",
    "Agent",
    "Conversation",
    "EventSink",
    "InterviewAnswer",
    "News",
    "Persona",
    "PlanStep",
    "Reaction",
    "RoutineAgent",
    "Utterance",
    "call_seed",
    "converse",
]
