"""The scripted curriculum: the next task by coverage of the installed SUMO's catalogue.

It reads the curriculum view: coverage by stage, each catalogue tool's status (new,
established by a page, used by a skill) and episodes, and every task so far. Candidates:

- establish a new tool (tier 1; a Python tool of `$SUMO_HOME/tools`, tier 2): save its
  `--help` into a text output, so that memory learns its options before a task assumes them;
- use an established tool (tier 2; 3) on a new grid with random trips, writing one output
  through it, at most twice;
- the composite practice tasks (`PRACTICE`, tiers 1 to 3).

It takes the candidate of the stage with the fewest accepted episodes, then the one whose tier
is nearest the level the accepted episodes have reached (one tier per three), ties broken by
the request's seed; never a task text it has already run.
"""

from __future__ import annotations

import random
import re

from simulacra.lab.prompts import CURRICULUM_FALLBACK, InputValue, ProposedTask
from simulacra.lab.scripted.chains import section, user
from simulacra.lab.scripted.practice import PRACTICE
from simulacra.lab.tasks import Category
from simulacra.llm import Request

_TOOL = re.compile(r"^- (new|established|used) \| (\w+) \| (.+?) \| (\d+) attempted", re.M)
_STAGE = re.compile(r"^- (\w+): (\d+) attempted, (\d+) accepted", re.M)
_USES = 2  # use tasks of one tool, after its establishing task


def propose(request: Request) -> ProposedTask:
    text = user(request)
    accepted = {s: int(a) for s, _, a in _STAGE.findall(section(text, "Coverage by stage"))}
    level = min(4, 1 + sum(accepted.values()) // 3)
    done = {line[line.index("] ") + 2 :] for line in section(text, "Tasks so far").splitlines()
            if line.startswith("- [")}  # fmt: skip
    rng = random.Random(request.seed)
    candidates = [c for c in _candidates(text, rng) if c.text not in done]
    if not candidates:
        return CURRICULUM_FALLBACK  # a repeat: the loop refuses it and runs its fallback
    return min(
        candidates,
        key=lambda c: (accepted.get(c.category.value, 0), abs(c.tier - level), rng.random()),
    )


def _candidates(text: str, rng: random.Random) -> list[ProposedTask]:
    found = []
    for status, stage, label, attempted in _TOOL.findall(
        section(text, "Tools of the installed SUMO (stage, tool, status, episodes)")
    ):
        python = ".py" in label
        if status == "new" and int(attempted) == 0:
            found.append(_establish(Category(stage), label, python))
        elif status == "established" and int(attempted) <= _USES:
            found.append(_use(Category(stage), label, python, rng))
    for category, tier, template, inputs, outputs in PRACTICE:
        found.append(
            ProposedTask(
                category=category,
                tier=tier,
                text=template.format(**inputs),
                inputs=[InputValue(name=k, value=v) for k, v in inputs.items()],
                required_outputs=outputs,
            )
        )
    return found


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower().removesuffix(".py")).strip("-")


def _command(label: str) -> str:
    tool = label.split()[0]
    return f"python $SUMO_HOME/tools/{tool}" if tool.endswith(".py") else tool


def _establish(stage: Category, label: str, python: bool) -> ProposedTask:
    tool, _, option = label.partition(" ")
    what = f"how sumo writes {option}" if option else f"what {tool} offers"
    return ProposedTask(
        category=stage,
        tier=2 if python else 1,
        text=(
            f"Establish {what} before relying on it: save the output of "
            f"`{_command(label)} --help` as outputs/{_slug(label)}.help.txt."
        ),
        required_outputs=[f"outputs/{_slug(label)}.help.txt"],
        premise="characterizes",
    )


def _use(stage: Category, label: str, python: bool, rng: random.Random) -> ProposedTask:
    tool, _, option = label.partition(" ")
    how = f"`{tool}` with `{option}`" if option else f"`{_command(label)}`"
    inputs = {
        "grid": str(rng.randint(3, 6)),
        "length": str(rng.choice([120, 150, 180, 200, 250])),
        "lanes": "1",
        "lights": "no",
        "period": str(rng.choice([2, 3, 4, 5])),
        "end": str(rng.choice([300, 400, 500, 600])),
        "seed": str(rng.randint(20, 99)),
    }
    text = (
        f"On a new {inputs['grid']} x {inputs['grid']} grid of {inputs['length']} m blocks with "
        f"random trips every {inputs['period']} s until {inputs['end']} s (seed "
        f"{inputs['seed']}), use {how} to write outputs/practice-{_slug(label)}.xml."
    )
    return ProposedTask(
        category=stage,
        tier=3 if python else 2,
        text=text,
        inputs=[InputValue(name=k, value=v) for k, v in inputs.items()],
        required_outputs=[f"outputs/practice-{_slug(label)}.xml"],
        premise="extends",
    )
