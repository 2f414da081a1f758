"""The cognitive commuter of the urban-mobility study: weekly plans from identity and long-term
memory, daily reflection and re-planning with short-term memory, weekly consolidation and the
monthly merge, the fallbacks of section 4.4, and the A1/B1/Full ablation; and beside it the
logit model, a classical baseline: a multinomial-logit commuter that learns from its trips."""

from simulacra.mind.commuter.agent import (
    VARIANTS,
    CommuterAgent,
    CommuterOptions,
    Faculties,
    ModelStep,
    Variant,
)
from simulacra.mind.commuter.choice import Belief
from simulacra.mind.commuter.logit import LogitCommuter, LogitOptions
from simulacra.mind.commuter.plans import (
    PLAN_DAYS,
    WEEKDAYS,
    DayPlan,
    PlanModels,
    PlanRules,
    WeeklyPlan,
    plan_models,
    random_week,
    trip_action,
)
from simulacra.mind.commuter.profiles import (
    PRIORITIES,
    Commuter,
    Person,
    Priorities,
    Profile,
    Sociodemographics,
    build_population,
    draw_person,
)
from simulacra.mind.commuter.prompts import Patterns, Reflection
from simulacra.mind.commuter.residents import CommuterPersona, persona_of, population_of
from simulacra.mind.commuter.scripted import script_commuters

__all__ = [
    "PLAN_DAYS",
    "PRIORITIES",
    "VARIANTS",
    "WEEKDAYS",
    "Belief",
    "Commuter",
    "CommuterAgent",
    "CommuterOptions",
    "CommuterPersona",
    "DayPlan",
    "Faculties",
    "LogitCommuter",
    "LogitOptions",
    "ModelStep",
    "Patterns",
    "Person",
    "PlanModels",
    "PlanRules",
    "Priorities",
    "Profile",
    "Reflection",
    "Sociodemographics",
    "Variant",
    "WeeklyPlan",
    "build_population",
    "draw_person",
    "persona_of",
    "plan_models",
    "population_of",
    "random_week",
    "script_commuters",
    "trip_action",
]
