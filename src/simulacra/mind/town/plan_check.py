"""What makes a day plan unplayable, and output models that refuse one.

A plan whose blocks are out of time order or start together (one overlaps the next), that
names no activity (a time in its place), puts an activity at another place than the one it
names, or puts sleep away from home or in the middle of the character's waking day is not
played (once copies of a block are folded into it, the one repair made): the output model's
validation rejects it, so the call is retried with a moved seed and, when every attempt
fails, the declared fallback (the persona's routine, or the plan already held) runs and is
counted as a fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise
from typing import Any, TypeVar

from pydantic import BaseModel, create_model, model_validator

from simulacra.mind.town.plan_prompts import NONE, ActionsOutput, PlannedBlock
from simulacra.mind.town.routine import is_sleep, minutes_of
from simulacra.mind.town.schedule import resolve_place

EVENING = 19  # from this hour on, a plan may say sleep whatever the persona's wake time

Plan = TypeVar("Plan", bound=BaseModel)


@dataclass(frozen=True)
class PlanRules:
    places: tuple[str, ...]
    home: str
    wake: int  # the hour the persona wakes: sleep after it and before EVENING is a fault


def repeats_dropped(blocks: Sequence[PlannedBlock]) -> list[PlannedBlock]:
    """The repair: a block that repeats the one before it (same activity at the same place,
    whatever its time) continues it. Small models pad a short day to the five blocks asked
    with copies of the last one, at the same or at wrapped-round times."""
    kept: list[PlannedBlock] = []
    for block in blocks:
        same = kept and (block.activity.strip().lower(), block.place.strip().lower()) == (
            kept[-1].activity.strip().lower(),
            kept[-1].place.strip().lower(),
        )
        if not same:
            kept.append(block)
    return kept


def faults(blocks: Sequence[PlannedBlock], rules: PlanRules) -> list[str]:
    """Why a plan cannot be played as it stands; empty when it can."""
    found = [
        f"{b.start} comes after {a.start}: blocks must be in time order, each after the last"
        for a, b in pairwise(blocks)
        if minutes_of(b.start) <= minutes_of(a.start)
    ]
    for block in blocks:
        if not any(c.isalpha() for c in block.activity):
            found.append(f"{block.activity!r} at {block.start} says no activity")
        place, _ = resolve_place(block.place, rules.places, rules.home)
        named = [p for p in rules.places if p.lower() in block.activity.lower()]
        if named and place not in named:
            found.append(f"{block.activity!r} is at {named[0]}, not at {place}")
        if not is_sleep(block.activity):
            continue
        if place != rules.home:
            found.append(f"{block.activity!r} at {block.place}: sleep is at {rules.home}")
        elif rules.wake < minutes_of(block.start) // 60 < EVENING:
            found.append(f"{block.activity!r} at {block.start}: that is the waking day")
    return found


@lru_cache(maxsize=512)
def _place(places: tuple[str, ...]) -> type[StrEnum]:
    """One enum of a set of places for every plan model over it (homes differ, their places
    may not): in bench/scale.py's town of ten thousand (1,250 homes, 1,500 places) an enum
    each cost 0.1 s and 1 MB, 2,500 of them."""
    return one_of("Place", places)


@lru_cache(maxsize=512)  # agents that know the same places share one model
def checked(output: type[Plan], rules: PlanRules) -> type[Plan]:
    """`output` (a model with `blocks`) whose validation refuses a plan with faults."""

    def playable(plan: Any) -> Any:
        plan.blocks = repeats_dropped(plan.blocks)
        problems = faults(plan.blocks, rules)
        if problems:
            raise ValueError("; ".join(problems))
        return plan

    validator = model_validator(mode="after")(playable)
    fields: dict[str, Any] = {}
    if rules.places:
        # The place is one the agent knows: SmolLM2-135M wrote "Hobbes Cafe", which resolves
        # to no place, and the guest it was to bring stayed home.
        block = create_model(
            "PlannedBlock", __base__=PlannedBlock, place=(_place(rules.places), ...)
        )
        fields["blocks"] = (list[block], output.model_fields["blocks"])
    model: type[Plan] = create_model(
        output.__name__,
        __base__=output,
        __validators__={"playable": validator},  # type: ignore[dict-item]
        **fields,
    )
    return model


def one_of(name: str, values: Sequence[str]) -> type[StrEnum]:
    """`values` as an enum called `name`, for a field of an output model."""
    return StrEnum(name, {f"v{i}": v for i, v in enumerate(values)})  # type: ignore[return-value]


@lru_cache(maxsize=512)
def placed(output: type[Plan], places: tuple[str, ...]) -> type[Plan]:
    """`output` (a model with a `place`) whose place is one of `places` (any, when none)."""
    if not places:
        return output
    model: type[Plan] = create_model(
        output.__name__, __base__=output, place=(one_of("Place", places), ...)
    )
    return model


@lru_cache(maxsize=512)
def using(objects: tuple[str, ...]) -> type[ActionsOutput]:
    """ActionsOutput whose hour uses one of `objects` or none."""
    thing = one_of("Object", (*objects, NONE))
    return create_model("ActionsOutput", __base__=ActionsOutput, object=(thing, ...))
