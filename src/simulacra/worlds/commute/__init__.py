"""The commute world: a corridor city with a bus line, a taxi fleet and footpaths, and two
executors (builtin SimPy, Eclipse SUMO) behind `execute_day(day, trips)`."""

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
from simulacra.worlds.commute.config import CommuteConfig, CommuteFigures, Executor
from simulacra.worlds.commute.executor import (
    EXECUTORS,
    TripExecutor,
    executor_problem,
    open_executor,
)
from simulacra.worlds.commute.metrics import (
    TABLE5_COLUMNS,
    commute_metrics,
    mean_modal_split,
    mean_taxi_wait,
    on_time_window,
    strike_days,
)
from simulacra.worlds.commute.outcomes import (
    MODES,
    Mode,
    Punctuality,
    PunctualitySummary,
    Trip,
    TripOutcome,
    classify,
    summarize,
)
from simulacra.worlds.commute.satisfaction import PRIORITIES, Traveller
from simulacra.worlds.commute.world import CommuteWorld, week_of

__all__ = [
    "DEFAULT_ZONES",
    "EXECUTORS",
    "MODES",
    "PRIORITIES",
    "TABLE5_COLUMNS",
    "BuiltinExecutor",
    "BusLine",
    "City",
    "CityConfig",
    "CommuteConfig",
    "CommuteFigures",
    "CommuteWorld",
    "Executor",
    "Mode",
    "Punctuality",
    "PunctualitySummary",
    "TaxiFleet",
    "TaxiStrike",
    "Traveller",
    "Trip",
    "TripExecutor",
    "TripOutcome",
    "Walking",
    "classify",
    "commute_metrics",
    "executor_problem",
    "mean_modal_split",
    "mean_taxi_wait",
    "on_time_window",
    "open_executor",
    "strike_days",
    "summarize",
    "week_of",
]
