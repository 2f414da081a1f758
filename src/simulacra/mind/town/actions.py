"""An hour's actions as plan steps: the model's phrases shared over the hour in 5-15 minute
steps, each using the object the model chose for the hour in the state it wrote, and the
declared fallback's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

from simulacra.mind.town.plan_prompts import NONE, ActionsOutput
from simulacra.mind.town.schedule import PlanStep, fit_durations

IN_USE = "in use"  # the rule's state of an object an action uses, where the model wrote none


def fallback_actions(texts: Sequence[str]) -> ActionsOutput:
    """The declared fallback's actions: no object chosen, so each uses the one it names."""
    return ActionsOutput(actions=list(texts), object=NONE, state="")


def steps_from(planned: ActionsOutput, hour: PlanStep, objects: Sequence[str]) -> list[PlanStep]:
    """Contiguous 5-15 minute actions covering `hour` exactly, the hour shared evenly among
    the planned ones (the last repeated if the hour needs more steps). Each uses the hour's
    object (one of `objects`) in the state the model wrote, else the rule's IN_USE; where the
    model chose none, a step uses the object its words name, in the rule's state."""
    kept = [a.strip() for a in planned.actions if a.strip()] or [hour.description]
    chosen = str(planned.object) if planned.object in objects else None
    share = round(hour.duration_min / len(kept))
    lengths = fit_durations([share] * len(kept), hour.duration_min)
    steps: list[PlanStep] = []
    at = hour.start
    for i, minutes in enumerate(lengths):
        text = kept[min(i, len(kept) - 1)]
        thing = chosen or object_named(text, objects)
        state = (planned.state.strip() if chosen else "") or IN_USE
        steps.append(PlanStep(at, minutes, hour.place, text, thing, state if thing else None))
        at += timedelta(minutes=minutes)
    return steps


def object_named(text: str, objects: Sequence[str]) -> str | None:
    lowered = text.lower()
    for thing in sorted(objects, key=len, reverse=True):  # "coffee machine" before "machine"
        if re.search(rf"\b{re.escape(thing.lower())}\b", lowered):
            return thing
    return None
