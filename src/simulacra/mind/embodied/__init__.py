"""The embodied minds: the source's vision-language agent (`vlm`), the caption agent that
any text model can drive (`caption`), and the baselines that call no model (`seeker`,
`oracle`, `random`); prompts with their fallbacks and scripted responders beside them."""

from simulacra.mind.embodied.agent import CaptionOptions, EmbodiedAgent, VlmOptions
from simulacra.mind.embodied.baselines import Oracle, RandomWalker, Seeker, colour_mask
from simulacra.mind.embodied.caption import describe
from simulacra.mind.embodied.prompts import (
    FALLBACK,
    PURPOSE_CAPTION,
    PURPOSE_TALK,
    PURPOSE_VLM,
    Entry,
    Situation,
    decision_messages,
    decision_text,
    flatten,
)
from simulacra.mind.embodied.scripted import script_embodied

__all__ = [
    "FALLBACK",
    "PURPOSE_CAPTION",
    "PURPOSE_TALK",
    "PURPOSE_VLM",
    "CaptionOptions",
    "EmbodiedAgent",
    "Entry",
    "Oracle",
    "RandomWalker",
    "Seeker",
    "Situation",
    "VlmOptions",
    "colour_mask",
    "decision_messages",
    "decision_text",
    "describe",
    "flatten",
    "script_embodied",
]
