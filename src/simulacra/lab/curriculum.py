"""The curriculum: what the library covers, by stage and by tool of the installed SUMO, why
episodes failed, and the next task, validated before it runs.

The view carries coverage by workflow stage and by catalogue tool (new, established by a
page, used by a skill), the reasons of failed episodes, the pages, the skills and every task
so far. A proposal whose required outputs are not under outputs/ or that repeats an earlier
task is refused and asked again with the reasons; after `PROPOSALS` refusals the declared
fallback runs, logged. Tier and stage are enums of the proposal's schema.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from simulacra.lab.agent import LearningAgent
from simulacra.lab.catalogue import Item, catalogue
from simulacra.lab.library import Library
from simulacra.lab.prompts import CURRICULUM, CURRICULUM_FALLBACK, ProposedTask
from simulacra.lab.tasks import Category, Task
from simulacra.lab.views import Coverage, History, curriculum_view, tail

PROPOSALS = 3


async def propose(agent: LearningAgent, library: Library, number: int) -> Task:
    """The curriculum's next task, validated before it runs: asked again with the reasons
    when refused, then the declared fallback (logged)."""
    known = history(library)
    problems: list[str] = []
    for _ in range(PROPOSALS):
        proposed = await agent.ask(CURRICULUM, curriculum_view(known, problems))
        task = _task(number, proposed)
        problems = proposal_problems(task, [t for t, _ in known.tasks])
        if not problems:
            return task
    library.append_log(f"curriculum: fallback task after refused proposals: {'; '.join(problems)}")
    return _task(number, CURRICULUM_FALLBACK)


def _task(number: int, proposed: ProposedTask) -> Task:
    return Task(
        id=f"learn-{number:03d}-{proposed.category.value}",
        tier=proposed.tier,
        category=proposed.category,
        text=proposed.text,
        inputs={i.name: i.value for i in proposed.inputs},
        required_outputs=[o.strip() for o in proposed.required_outputs if o.strip()],
    )


def proposal_problems(task: Task, earlier: Sequence[str]) -> list[str]:
    """Why a proposed task may not run: an output outside outputs/, a repeat. (Its tier and
    stage are enums of the proposal's schema.)"""
    problems = []
    for output in task.required_outputs:
        path = PurePosixPath(output)
        if path.is_absolute() or path.parts[0] != "outputs" or ".." in path.parts:
            problems.append(f"required output {output} is not a path under outputs/")
    if not task.required_outputs:
        problems.append("no required output")
    if " ".join(task.text.split()) in {" ".join(t.split()) for t in earlier}:
        problems.append("a repeat of an earlier task")
    return problems


def history(library: Library) -> History:
    attempted: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    tasks: list[tuple[str, bool]] = []
    failures: list[str] = []
    for folder in sorted((library.root / "episodes").glob("*/task.yaml")):
        data = yaml.safe_load(folder.read_text(encoding="utf-8")) or {}
        attempts = sorted(folder.parent.glob("attempt-*/verdicts.json"))
        verdicts = json.loads(attempts[-1].read_text(encoding="utf-8")) if attempts else {}
        ok = bool(verdicts.get("accepted"))
        text = str(data.get("text", ""))
        for key in (str(data.get("category", "")), *_tools_named(text)):
            attempted[key] += 1
            accepted[key] += ok
        tasks.append((text, ok))
        if not ok:
            failures.append(f"{data.get('id', folder.parent.name)}: {_why(verdicts)}")
    stages = [Coverage(c.value, attempted[c.value], accepted[c.value]) for c in Category]
    skills = library.skills()
    pages = library.pages()
    used = " ".join(_text(s.path) for s in skills)
    names = {s.meta.name for s in skills} | {p.name for p in pages}
    tools = [
        Coverage(
            f"{item.stage.value} | {item.label}",
            attempted[item.label],
            accepted[item.label],
            _status(item, names, used),
        )
        for item in catalogue()
    ]
    return History(
        stages=stages,
        tools=tools,
        failures=failures[-8:],
        pages=[(p.name, p.meta.title) for p in pages],
        skills=[s.meta.name for s in skills],
        tasks=tasks,
    )


def _status(item: Item, names: set[str], skills: str) -> str:
    """used: a skill runs it (a learned `use-` skill, or a skill's script that calls it);
    established: a page of its options (`tool-`); else new."""
    if f"use-{item.slug}" in names or _mentions(skills, item):
        return "used"
    return "established" if f"tool-{item.slug}" in names else "new"


def _tools_named(text: str) -> list[str]:
    return [item.label for item in catalogue() if _mentions(text, item)]


def _mentions(text: str, item: Item) -> bool:
    if item.option:
        return f"--{item.option}" in text
    return re.search(rf"(?<![\w-]){re.escape(item.tool)}(?![\w-])", text) is not None


def _text(folder: Path) -> str:
    return " ".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())


def _why(verdicts: dict[str, Any]) -> str:
    findings = [
        f"{f['check']}: {f['message']}" for f in (verdicts.get("checker") or {}).get("findings", [])
    ]
    critic = verdicts.get("critic") or {}
    if critic.get("decision") == "revise":
        findings.append(f"critic: {critic.get('feedback') or '; '.join(critic.get('reasons', []))}")
    return tail("; ".join(findings) or "no verdict", 300)
