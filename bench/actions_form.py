"""What an object's state costs the embedded model in `plan.actions`, form against form, on
the same prompts: those of a run's `plan.actions` calls (its prompt log), each asked again
through the run's model (the scenario's embedded model, greedy as a run asks) in every form:

- phrases: bare phrases, no object or state (the form before object states);
- per_action: each action `{do, object, state}` (object states' first form);
- per_hour: the phrases, then one object and its state for the hour (the shipped form).

For each form: completion tokens a call (mean, total), answers that validated, and how many
answers used an object and wrote it a state. Prints one JSON line.

    simulacra run scenarios/town.yaml --set memory.importance=rule --set clock.duration=3h \\
        --set output.root=/tmp/actions-run
    python bench/actions_form.py /tmp/actions-run/town-*/ --limit 12
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model

from simulacra.experiments import load_scenario
from simulacra.experiments.models import load_run_model
from simulacra.llm import MaxChars, Request, chat
from simulacra.llm.prompt_log import PROMPTS, prompt_of, read_prompts
from simulacra.mind.town import plan_prompts as p
from simulacra.mind.town.plan import ACTIONS_TOKENS
from simulacra.mind.town.plan_check import one_of, using
from simulacra.runlog import read_events

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town.yaml"
# The task texts and token budgets of the earlier forms, as they shipped.
PHRASES_TASK = (
    "You break a character's plan for the coming hour into 3 to 6 concrete actions of 5 to "
    "15 minutes each, in order. Reply in JSON with a list of short actions; an action that "
    "uses one of the objects here names it."
)
PER_ACTION_TASK = (
    "You break a character's plan for the coming hour into 3 to 6 concrete actions of 5 to "
    "15 minutes each, in order. Reply in JSON with a list of short actions; each names the "
    "object here it uses (or none) and what that object is doing meanwhile (the espresso "
    "machine is: brewing coffee), empty when none."
)
TASKS = {"phrases": PHRASES_TASK, "per_action": PER_ACTION_TASK, "per_hour": p.ACTIONS_SYSTEM}
BUDGETS = {"phrases": 80, "per_action": 248, "per_hour": ACTIONS_TOKENS}


class Phrases(BaseModel):
    actions: list[Annotated[str, MaxChars(36)]] = Field(min_length=1, max_length=p.MAX_ACTIONS)


def per_action(objects: tuple[str, ...]) -> type[BaseModel]:
    thing = one_of("Object", (*objects, p.NONE))
    action = create_model(
        "PlannedAction",
        do=(Annotated[str, MaxChars(36)], ...),
        object=(thing, ...),
        state=(Annotated[str, MaxChars(30)], ...),
    )
    actions = list[action]
    field = Field(min_length=1, max_length=p.MAX_ACTIONS)
    model: type[BaseModel] = create_model("ActionsOutput", actions=(actions, field))
    return model


def output_of(form: str, objects: tuple[str, ...]) -> type[BaseModel]:
    if form == "phrases":
        return Phrases
    return per_action(objects) if form == "per_action" else using(objects)


def prompts(run: Path, limit: int) -> list[tuple[str, str, tuple[str, ...]]]:
    """(system, user, objects offered) of the run's first `limit` plan.actions calls."""
    store = read_prompts(run / PROMPTS)
    found = []
    for event in read_events(run / "events.jsonl"):
        if event.kind != "llm.call" or event.data.get("purpose") != "plan.actions":
            continue
        system, user = (m.text for m in prompt_of(store, event.data["prompt"]))
        listed = user.split("Objects here: ", 1)[1].split("\n", 1)[0]
        objects = () if listed.startswith("(none") else tuple(listed.split(", "))
        found.append((system, user, objects))
    return found[:limit]


def used(form: str, value: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the answer used an object, and whether it wrote one a state."""
    if form == "phrases":
        return False, False
    if form == "per_hour":
        return value["object"] != p.NONE, value["object"] != p.NONE and bool(value["state"])
    picked = [a for a in value["actions"] if a["object"] != p.NONE]
    return bool(picked), any(a["state"] for a in picked)


async def ask_all(run: Path, limit: int) -> dict[str, Any]:
    scenario = load_scenario(SCENARIO, ["memory.importance=rule"])
    model = load_run_model(scenario)
    asked = prompts(run, limit)
    figures: dict[str, Any] = {"prompts": len(asked)}
    for form, task in TASKS.items():
        requests = []
        for system, user, objects in asked:
            shipped = next(t for t in TASKS.values() if t in user)
            output = output_of(form, objects)
            requests.append(
                Request(
                    chat(system, user.replace(shipped, task)),
                    output=output,
                    fallback=None,
                    max_tokens=BUDGETS[form],
                    purpose="plan.actions",
                    agent="probe",
                )
            )
        done = await asyncio.gather(*(model.complete(r) for r in requests))
        tokens = [c.usage.completion_tokens for c in done]
        valid = [c.value.model_dump() for c in done if isinstance(c.value, BaseModel)]
        uses = [used(form, v) for v in valid]
        figures[form] = {
            "completion_tokens_mean": round(statistics.fmean(tokens), 1),
            "completion_tokens": sum(tokens),
            "valid": len(valid),
            "used_an_object": sum(u for u, _ in uses),
            "wrote_a_state": sum(s for _, s in uses),
            "first_answers": valid[:3],
        }
    await model.aclose()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a town run's directory (its prompt log)")
    parser.add_argument("--limit", type=int, default=12, help="plan.actions prompts at most")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(ask_all(args.run, args.limit))))


if __name__ == "__main__":
    main()
