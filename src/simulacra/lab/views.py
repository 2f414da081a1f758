"""The user messages of the lab's prompts, rendered from plain data.

Every section starts with a `## ` heading; skills loaded in full start with `### skill: `. The
scripted policy reads exactly what a model would read, nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from simulacra.lab.episode import Report
from simulacra.lab.library import Page, Skill
from simulacra.lab.record import CommandRecord
from simulacra.lab.retrieval import Candidate
from simulacra.lab.tasks import Task

TAIL_CHARS = 600


@dataclass(frozen=True)
class Coverage:
    """Episodes attempted and accepted in one stage of the workflow or on one tool."""

    name: str
    attempted: int
    accepted: int
    status: str = ""  # a tool's: new, established (a page), used (a skill)


@dataclass(frozen=True)
class History:
    """What the curriculum reads: coverage by stage and by tool of the installed SUMO, why
    episodes failed, memory's pages and skills, and every task so far (no repeats)."""

    stages: Sequence[Coverage]
    tools: Sequence[Coverage]
    failures: Sequence[str]
    pages: Sequence[tuple[str, str]]
    skills: Sequence[str]
    tasks: Sequence[tuple[str, bool]]


def task_block(task: Task) -> str:
    inputs = "\n".join(f"{k}: {v}" for k, v in task.inputs.items()) or "(none)"
    outputs = "\n".join(f"- {o}" for o in task.required_outputs) or (
        "(none listed: the task's text says what to deliver, under outputs/)"
    )
    return (
        f"## Task\nid: {task.id}\ntier: {task.tier}\ncategory: {task.category.value}\n"
        f"{task.text}\n\n## Inputs\n{inputs}\n\n## Required outputs\n{outputs}\n"
    )


def curriculum_view(history: History, problems: Sequence[str] = ()) -> str:
    """`problems`: why the last proposal was refused, when it was."""
    lines = ["## Coverage by stage"]
    lines += [f"- {c.name}: {c.attempted} attempted, {c.accepted} accepted" for c in history.stages]
    lines += ["", "## Tools of the installed SUMO (stage, tool, status, episodes)"]
    lines += [
        f"- {c.status} | {c.name} | {c.attempted} attempted, {c.accepted} accepted"
        for c in history.tools
    ]
    lines += ["", "## Why episodes failed"]
    lines += [f"- {f}" for f in history.failures] or ["none"]
    lines += ["", "## Pages in memory"]
    lines += [f"- {name}: {title}" for name, title in history.pages] or ["none"]
    lines += ["", "## Skills in memory", ", ".join(history.skills) or "none", ""]
    lines += ["## Tasks so far"]
    lines += [f"- [{'accepted' if ok else 'rejected'}] {t}" for t, ok in history.tasks] or ["none"]
    if problems:
        lines += ["", "## Your last proposal was refused"] + [f"- {p}" for p in problems]
    lines.append("")
    lines.append(
        "Propose the next task, new and not a repeat: category (the stage), tier, text, inputs "
        "(name and value), required_outputs (paths under outputs/), premise. Establish a "
        "capability (run the tool, read its help) before a task assumes it."
    )
    return "\n".join(lines)


def select_view(task: Task, candidates: Sequence[Candidate], metadata: dict[str, str]) -> str:
    lines = [task_block(task), "## Candidates"]
    for c in candidates:
        lines.append(
            f"- {c.entry.kind} {c.entry.name} (score {c.total:.2f}): {metadata[c.entry.name]}"
        )
    return "\n".join(lines) + "\n\nWhich do you load in full?"


def skill_block(skill: Skill) -> str:
    meta = skill.meta
    return (
        f"### skill: {meta.name}\ninputs: {', '.join(meta.inputs)}\n"
        f"outputs: {', '.join(meta.outputs)}\n{_demote(skill.body)}\n"
    )


def _demote(body: str) -> str:
    """Headings inside a skill or page sit below the prompt's own `## ` sections."""
    return re.sub(r"(?m)^(#{1,3}) ", r"####\1 ", body.strip())


def page_block(page: Page) -> str:
    return f"### page: {page.name}\n{page.meta.title}. {page.meta.summary}\n{_demote(page.body)}\n"


@dataclass(frozen=True)
class StepResult:
    """What one step of the action loop did, as the next step sees it."""

    number: int
    action: str  # run, write, done
    what: str  # the command, or the path written
    outcome: str  # "exit 0", "wrote 812 characters", "not done: outputs/x.xml missing"
    output: str = ""  # the tails of the command's stdout and stderr
    failed: bool = False
    finished: bool = False


def act_view(
    task: Task,
    present: Sequence[str],
    skills: Sequence[Skill],
    pages: Sequence[Page],
    feedback: Sequence[str],
    steps: Sequence[StepResult],
    limits: str = "",
) -> str:
    parts = [task_block(task)]
    parts.append(
        "## Files already in the attempt\n" + ("\n".join(f"- {p}" for p in present) or "none")
    )
    parts.append("## Skills loaded\n" + ("\n".join(skill_block(s) for s in skills) or "none"))
    parts.append("## Pages loaded\n" + ("\n".join(page_block(p) for p in pages) or "none"))
    parts.append(
        "## Feedback from earlier attempts\n" + ("\n".join(f"- {f}" for f in feedback) or "none")
    )
    parts.append("## Steps so far\n" + (_transcript(steps) or "none"))
    if limits:
        parts.append(f"## Limits\n{limits}")
    return "\n\n".join(parts)


def _transcript(steps: Sequence[StepResult], full: int = 8) -> str:
    """The steps of this attempt: the last `full` with their output, the earlier ones a line."""
    lines = []
    for step in steps:
        head = f"### step {step.number}: {step.action}\n"
        body = f"$ {step.what}" if step.action == "run" else step.what
        lines.append(f"{head}{body}\n-> {step.outcome}")
        if step.output and step.number > len(steps) - full:
            lines.append(step.output)
    return "\n".join(lines)


def report_view(
    task: Task,
    commands: Sequence[CommandRecord],
    outputs: Sequence[tuple[str, int]],
    tails: dict[str, str],
) -> str:
    results = [_command_line(r) + "\n" + tails.get(r.stdout, "") for r in commands]
    listing = "\n".join(f"- {path} ({size} bytes)" for path, size in outputs) or "none"
    return (
        f"{task_block(task)}\n## Command results\n"
        + "\n".join(results)
        + f"\n\n## Outputs\n{listing}\n\n"
        "Measures: xml_count, xml_mean, xml_sum, xml_max, xml_min, xml_attribute (element, "
        "attribute), json_value (key), csv_mean (key), csv_count."
    )


def critic_view(
    task: Task,
    commands: Sequence[CommandRecord],
    outputs: Sequence[tuple[str, int]],
    report: Report,
    tails: dict[str, str],
    contents: str = "",
) -> str:
    """`contents` (`evidence.contents`): the head of each output, SUMO's outputs parsed, and
    the report's claims beside the values their artifacts give."""
    results = [_command_line(r) + "\n" + tails.get(r.stderr, "") for r in commands]
    listing = "\n".join(f"- {path} ({size} bytes)" for path, size in outputs) or "none"
    claims = "\n".join(
        f"- {c.name} = {c.value:g} from {c.artifact} ({c.measure.value})" for c in report.claims
    )
    return (
        f"{task_block(task)}\n## Commands\n" + "\n".join(results) + f"\n\n## Outputs\n{listing}\n\n"
        f"## Report\nsuccess: {str(report.success).lower()}\n{report.summary}\n"
        f"## Claims\n{claims or 'none'}\n" + (f"\n{contents}\n" if contents else "")
    )


def consolidate_view(
    task: Task,
    accepted: bool,
    used: Sequence[Skill],
    commands: Sequence[CommandRecord],
    echoed: Sequence[Sequence[str]],
    report: Report,
    existing: Sequence[Skill],
    pages: Sequence[str],
    evidence: Evidence,
) -> str:
    """`echoed` holds, for each command, the `$ ...` lines its output echoed: the calls its
    script made, a tool's command line among them."""
    lines = [task_block(task), f"## Verdict\n{'accepted' if accepted else 'rejected'}"]
    lines.append(
        "## Findings and feedback of every attempt\n"
        + ("\n".join(f"- {f}" for f in evidence.verdicts) or "none")
    )
    logs = [f"### {path}\n{text}" for path, text in evidence.logs.items() if text.strip()]
    lines.append("## Logs of the final try\n" + ("\n".join(logs) or "none"))
    heads = [f"### {path}\n{text}" for path, text in evidence.outputs]
    lines.append("## Delivered text outputs\n" + ("\n".join(heads) or "none"))
    lines.append("## Pages loaded\n" + ("\n".join(page_block(p) for p in evidence.pages) or "none"))
    lines.append("## Skills used\n" + ("\n".join(skill_block(s) for s in used) or "none"))
    lines.append("## Commands\n" + "\n".join(f"$ {r.command}" for r in commands))
    calls = [
        f"- `{r.command}`\n" + "".join(f"  {line}\n" for line in found)
        for r, found in zip(commands, echoed, strict=True)
        if found
    ]
    lines.append("## Tool calls the commands echoed\n" + ("".join(calls).rstrip() or "none"))
    lines.append(f"## Report\n{report.summary}")
    covering = [s.meta.name for s in existing if set(task.required_outputs) <= set(s.meta.outputs)]
    lines.append(
        "## Skills that already produce every required output\n" + (", ".join(covering) or "none")
    )
    inventory = [
        f"- {s.meta.name}: outputs {', '.join(s.meta.outputs) or 'none'}; "
        f"links {', '.join(s.meta.links) or 'none'}"
        for s in existing
    ]
    lines.append("## Skills in memory\n" + ("\n".join(inventory) or "none"))
    lines.append("## Pages in memory\n" + (", ".join(pages) or "none"))
    return "\n\n".join(lines)


@dataclass(frozen=True)
class Evidence:
    """What consolidation learns from beyond the commands: the checker's findings and the
    critic's feedback of every attempt, the final try's logs, and the head of each delivered
    text output (a tool's help, a JSON of figures)."""

    verdicts: Sequence[str]
    logs: dict[str, str]
    outputs: Sequence[tuple[str, str]]
    pages: Sequence[Page] = ()  # the pages the episode loaded, to revise


def _command_line(record: CommandRecord) -> str:
    state = record.stopped or f"exit {record.exit_code}"
    return f"$ {record.command}\n-> {state} in {record.duration_s:.2f} s"


def tail(text: str, chars: int = TAIL_CHARS) -> str:
    return text if len(text) <= chars else "..." + text[-chars:]


def judge_view(
    task: Task,
    commands: Sequence[CommandRecord],
    tails: dict[str, str],
    report: Report,
    contents: str,
    named: Sequence[tuple[str, bool]],
) -> str:
    """The episodic record as a context-free judge reads it: the task as given, what ran (the
    final try), the outputs' contents, the report and the paths the task names."""
    results = [_command_line(r) + "\n" + tails.get(r.stderr, "") for r in commands]
    paths = "\n".join(f"- {p}: {'exists' if ok else 'missing'}" for p, ok in named) or "none"
    return (
        f"## Task\n{task.text}\n\n## Files given\n"
        + ("\n".join(f"- outputs/{f}" for f in task.files) or "none")
        + "\n\n## Commands of the final try\n"
        + ("\n".join(results) or "none")
        + f"\n\n## Paths the task names\n{paths}\n\n"
        f"## Report\nsuccess: {str(report.success).lower()}\n{report.summary}\n\n{contents}\n"
    )
