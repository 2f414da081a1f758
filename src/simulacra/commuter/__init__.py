"""The cognitive commuter of the urban-mobility study: weekly plans from identity and long-term
memory, daily reflection and re-planning with short-term memory, weekly pattern abstraction,
the fallbacks of section 4.4, and the A1/B1/Full ablation."""

from simulacra.commuter.agent import VARIANTS, CommuterAgent, Decision, Faculties, Variant
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
from simulacra.commuter.scripted import script_commuters

__all__ = [
    "PLAN_DAYS",
    "VARIANTS",
    "WEEKDAYS",
    "CommuteConfig",
    "CommuteResults",
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
    "Variant",
    "WeeklyPlan",
    "ablation_table",
    "load_commute_config",
    "plan_models",
    "random_week",
    "run_commute",
    "script_commuters",
]
