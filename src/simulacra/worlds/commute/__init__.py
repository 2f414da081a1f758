"""The commute world: a corridor city with a bus line, a taxi fleet and footpaths, its
population of commuter profiles, and two executors (builtin SimPy, Eclipse SUMO) behind
`execute_day(day, trips)`."""

from simulacra.worlds.commute.builtin import BuiltinExecutor
from simulacra.worlds.commute.city import (
    DEFAULT_ZONES,
    BusLine,
    City,
    CityConfig,
    TaxiFleet,
    TaxiStrike,
    Walking,
)
from simulacra.worlds.commute.executor import EXECUTORS, TripExecutor, open_executor
from simulacra.worlds.commute.outcomes import (
    Punctuality,
    PunctualitySummary,
    Trip,
    TripOutcome,
    classify,
    summarize,
)
from simulacra.worlds.commute.population import (
    MODES,
    Commuter,
    Mode,
    Profile,
    ProfileBook,
    ProfileCount,
    Sociodemographics,
    build_population,
    load_profiles,
)
from simulacra.worlds.commute.times import DayWindow, format_hhmm, parse_hhmm

__all__ = [
    "DEFAULT_ZONES",
    "EXECUTORS",
    "MODES",
    "BuiltinExecutor",
    "BusLine",
    "City",
    "CityConfig",
    "Commuter",
    "DayWindow",
    "Mode",
    "Profile",
    "ProfileBook",
    "ProfileCount",
    "Punctuality",
    "PunctualitySummary",
    "Sociodemographics",
    "TaxiFleet",
    "TaxiStrike",
    "Trip",
    "TripExecutor",
    "TripOutcome",
    "Walking",
    "build_population",
    "classify",
    "format_hhmm",
    "load_profiles",
    "open_executor",
    "parse_hhmm",
    "summarize",
]
