"""The vocabulary worlds and minds share, below both: what an agent observes, what it does,
what came of it, the phases of a tick, and the protocols the engine drives them through.

Worlds never import minds and minds never import worlds; both speak these types.
"""

from simulacra.core.mind import (
    Answerer,
    Correctable,
    InterviewAnswer,
    Interviewee,
    Mind,
    Talker,
    Thinker,
)
from simulacra.core.seeds import crc_seed, derived_seed
from simulacra.core.times import (
    DayWindow,
    Duration,
    Moment,
    TimeFormatError,
    format_hhmm,
    naive,
    on_day,
    parse_hhmm,
)
from simulacra.core.words import at_a_word, mentions, mentions_all
from simulacra.core.world import (
    Action,
    Address,
    Begins,
    Encounter,
    Intervenable,
    Observation,
    Outcome,
    Phase,
    Resolution,
    Spatial,
    Tick,
    World,
    WorldEvent,
)

__all__ = [
    "Action",
    "Address",
    "Answerer",
    "Begins",
    "Correctable",
    "DayWindow",
    "Duration",
    "Encounter",
    "Intervenable",
    "InterviewAnswer",
    "Interviewee",
    "Mind",
    "Moment",
    "Observation",
    "Outcome",
    "Phase",
    "Resolution",
    "Spatial",
    "Talker",
    "Thinker",
    "Tick",
    "TimeFormatError",
    "World",
    "WorldEvent",
    "at_a_word",
    "crc_seed",
    "derived_seed",
    "format_hhmm",
    "mentions",
    "mentions_all",
    "naive",
    "on_day",
    "parse_hhmm",
]
