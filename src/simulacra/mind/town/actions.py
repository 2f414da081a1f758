"""An hour's actions as plan steps: the model's actions (each a phrase, the object it uses and
that object's state) shared over the hour in 5-15 minute steps, and the declared fallback's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

from simulacra.mind.town.plan_prompts import NONE, ActionsOutput, PlannedAction
from simulacra.mind.town.schedule import PlanStep, fit_durations

IN_USE = "in use"  # the rule's state of an object an action uses, where the model wrote none


def fallback_actions(texts: Sequence[str], objects: Sequence[str]) -> ActionsOutput:
    """The declared fallback's actions: each uses the first object of `objects` it names,
    in the rule's state."""
    actions = [
        PlannedAction(do=t, object=object_named(t, objects) or NONE, state="") for t in texts
    ]
    return ActionsOutput(actions=actions)


def steps_from(
    planned: Sequence[PlannedAction], hour: PlanStep, objects: Sequence[str]
) -> list[PlanStep]:
    """Contiguous 5-15 minute actions covering `hour` exactly, the hour shared evenly among
    the planned ones (the last repeated if the hour needs more steps). An action's object is
    one of `objects`; its state is the one the model wrote, else the rule's IN_USE."""
    kept = [a for a in planned if a.do.strip()]
    if not kept:
        kept = [PlannedAction(do=hour.description, object=NONE, state="")]
    share = round(hour.duration_min / len(kept))
    lengths = fit_durations([share] * len(kept), hour.duration_min)
    steps: list[PlanStep] = []
    at = hour.start
    for i, minutes in enumerate(lengths):
        action = kept[min(i, len(kept) - 1)]
        thing = str(action.object) if action.object in objects else None
        state = (action.state.strip() or IN_USE) if thing else None
        steps.append(PlanStep(at, minutes, hour.place, action.do.strip(), thing, state))
        at += timedelta(minutes=minutes)
    return steps


def object_named(text: str, objects: Sequence[str]) -> str | None:
    lowered = text.lower()
    for thing in sorted(objects, key=len, reverse=True):  # "coffee machine" before "machine"
        if re.search(rf"\b{re.escape(thing.lower())}\b", lowered):
            return thing
    return None
