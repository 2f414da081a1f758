"""The cognitive commuter of the urban-mobility study: weekly plans from identity and long-term
memory, daily reflection and re-planning with short-term memory, weekly consolidation, the
fallbacks of section 4.4, and the A1/B1/Full ablation."""

from simulacra.mind.commuter.agent import VARIANTS, CommuterAgent, Decision, Faculties, Variant
from simulacra.mind.commuter.plans import (
    PLAN_DAYS,
    WEEKDAYS,
    DayPlan,
    PlanModels,
    PlanRules,
    WeeklyPlan,
    plan_models,
    random_week,
)
from simulacra.mind.commuter.profiles import (
    Commuter,
    Profile,
    Sociodemographics,
    build_population,
)
from simulacra.mind.commuter.prompts import Patterns, Reflection
from simulacra.mind.commuter.scripted import script_commuters

__all__ = [
    "PLAN_DAYS",
    "VARIANTS",
    "WEEKDAYS",
    "Commuter",
    "CommuterAgent",
    "DayPlan",
    "Decision",
    "Faculties",
    "Patterns",
    "PlanModels",
    "PlanRules",
    "Profile",
    "Reflection",
    "Sociodemographics",
    "Variant",
    "WeeklyPlan",
    "build_population",
    "plan_models",
    "random_week",
    "script_commuters",
]
