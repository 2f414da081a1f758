"""The cognitive commuter of the urban-mobility study: weekly plans from identity and long-term
memory, daily reflection and re-planning with short-term memory, weekly pattern abstraction,
the fallbacks of section 4.4, and the A1/B1/Full ablation."""

from simulacra.commuter.agent import VARIANTS, CommuterAgent, Decision, Faculties, Variant
from simulacra.commuter.experiment import run_commute_scenario
from simulacra.commuter.memory import Episode, LongTermMemory, Pattern, ShortTermMemory
from simulacra.commuter.plans import (
    PLAN_DAYS,
    WEEKDAYS,
    DayPlan,
    PlanModels,
    PlanRules,
    WeeklyPlan,
    plan_models,
    random_week,
)
from simulacra.commuter.prompts import Patterns, Reflection
from simulacra.commuter.run import (
    CommuteConfig,
    CommuteResults,
    DayRecord,
    ablation_table,
    load_commute_config,
    run_commute,
)
from simulacra.commuter.scenario import CommuteScenario, SweepPlan, load_commute_scenario
from simulacra.commuter.scripted import script_commuters

__all__ = [
    "PLAN_DAYS",
    "VARIANTS",
    "WEEKDAYS",
    "CommuteConfig",
    "CommuteResults",
    "CommuteScenario",
    "CommuterAgent",
    "DayPlan",
    "DayRecord",
    "Decision",
    "Episode",
    "Faculties",
    "LongTermMemory",
    "Pattern",
    "Patterns",
    "PlanModels",
    "PlanRules",
    "Reflection",
    "ShortTermMemory",
    "SweepPlan",
    "Variant",
    "WeeklyPlan",
    "ablation_table",
    "load_commute_config",
    "load_commute_scenario",
    "plan_models",
    "random_week",
    "run_commute",
    "run_commute_scenario",
    "script_commuters",
]
