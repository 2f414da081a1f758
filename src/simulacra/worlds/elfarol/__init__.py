"""El Farol (W. Brian Arthur's bar problem): each week every agent goes to the bar or stays
home; the bar is enjoyable only when few enough go."""

from simulacra.worlds.elfarol.config import ElFarolConfig
from simulacra.worlds.elfarol.metrics import elfarol_metrics
from simulacra.worlds.elfarol.world import BAR, CHOOSE, GO, HOME, STAY, ElFarolWorld

__all__ = [
    "BAR",
    "CHOOSE",
    "GO",
    "HOME",
    "STAY",
    "ElFarolConfig",
    "ElFarolWorld",
    "elfarol_metrics",
]
