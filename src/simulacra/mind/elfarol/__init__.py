"""The El Farol agent: its one prompt, and Arthur's predictors as its scripted stand-in."""

from simulacra.mind.elfarol.agent import ElFarolAgent, Townsperson
from simulacra.mind.elfarol.prompts import FALLBACK, PURPOSE, BarChoice, Choice, Week, choose_prompt
from simulacra.mind.elfarol.scripted import (
    PREDICTORS,
    Predictor,
    bag_of,
    choose_by_predictors,
    script_elfarol,
)

__all__ = [
    "FALLBACK",
    "PREDICTORS",
    "PURPOSE",
    "BarChoice",
    "Choice",
    "ElFarolAgent",
    "Predictor",
    "Townsperson",
    "Week",
    "bag_of",
    "choose_by_predictors",
    "choose_prompt",
    "script_elfarol",
]
