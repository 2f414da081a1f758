"""The scripted policy: a labelled stand-in for a language model that composes skills.

It reads the prompts as a model would and answers by rule. To act, it chains the loaded
skills backwards from the required outputs through their declared inputs and outputs and fills
each usage line from the task's inputs; it writes no code of its own, so a task no skill
covers fails. It reports the claim lines the skills print, accepts an attempt whose commands
all succeeded and whose required outputs exist, and consolidates a composition of three or
more skills into a new pipeline skill. It drives the tests end to end; it is not a model.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from simulacra.lab.claims import Claim, Measure
from simulacra.lab.episode import Report
from simulacra.lab.prompts import (
    ActionPlan,
    Consolidation,
    CriticVerdict,
    Decision,
    InputValue,
    Language,
    MemoryAction,
    ProposedTask,
    ScriptFile,
    Selection,
    SkillDraft,
)
from simulacra.lab.tasks import Category
from simulacra.llm import Request, ScriptedModel

_USAGE = re.compile(r"#+ Usage\s*```[^\n]*\n(.+?)\n```", re.S)
_PLACEHOLDER = re.compile(r"\{(\w+)(?:=([^}]*))?\}")
_CLAIM = re.compile(r"^claim (\w+)=(\S+) artifact=(\S+) measure=(\w+)(.*)$", re.M)
_STAGES = ("network", "demand", "signals", "simulation", "calibration", "analysis", "plots")

# Practice tasks the scripted curriculum proposes: (category, tier, text, inputs, outputs).
PRACTICE: tuple[tuple[Category, int, str, dict[str, str], list[str]], ...] = (
    (Category.network, 1, "Build a {grid} x {grid} grid with {length} m blocks.",
     {"grid": "5", "length": "120", "lanes": "1", "lights": "no"}, ["outputs/grid.net.xml"]),
    (Category.signals, 1, "Build a {grid} x {grid} grid with {length} m blocks and traffic lights.",
     {"grid": "3", "length": "180", "lanes": "1", "lights": "yes"}, ["outputs/grid.net.xml"]),
    (Category.demand, 2, "Build a {grid} x {grid} grid and random trips every {period} s.",
     {"grid": "4", "length": "160", "lanes": "1", "lights": "no", "period": "3", "end": "600",
      "seed": "2"}, ["outputs/routes.rou.xml"]),
    (Category.simulation, 2, "Build a grid, make random trips and simulate them.",
     {"grid": "3", "length": "220", "lanes": "1", "lights": "no", "period": "3", "end": "900",
      "seed": "5"}, ["outputs/tripinfo.xml", "outputs/statistics.xml"]),
    (Category.analysis, 3, "Simulate random trips on a grid and plot the vehicles running.",
     {"grid": "3", "length": "200", "lanes": "1", "lights": "no", "period": "2", "end": "900",
      "seed": "8"}, ["outputs/summary.xml", "outputs/running.png"]),
    (Category.analysis, 3, "Simulate random trips on a grid and report mean trip metrics.",
     {"grid": "3", "length": "200", "lanes": "1", "lights": "no", "period": "3", "end": "1200",
      "seed": "9"}, ["outputs/tripinfo.xml", "outputs/metrics.json"]),
)  # fmt: skip


@dataclass(frozen=True)
class _Skill:
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    usage: str


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def _bullets(text: str) -> list[str]:
    return [line[2:].split(" (")[0].strip() for line in text.splitlines() if line.startswith("- ")]


def _inputs(text: str) -> dict[str, str]:
    pairs = (line.split(": ", 1) for line in _section(text, "Inputs").splitlines() if ": " in line)
    return {k.strip(): v.strip() for k, v in pairs}


def _skills(text: str) -> list[_Skill]:
    found = []
    for block in re.split(r"^### skill: ", text, flags=re.M)[1:]:
        name, _, rest = block.partition("\n")
        fields = dict(line.split(": ", 1) for line in rest.splitlines()[:2] if ": " in line)
        usage = _USAGE.search(rest)
        if usage is None:
            continue
        found.append(
            _Skill(
                name.strip(),
                tuple(s.strip() for s in fields.get("inputs", "").split(",") if s.strip()),
                tuple(s.strip() for s in fields.get("outputs", "").split(",") if s.strip()),
                usage.group(1).strip(),
            )
        )
    return found


def _user(request: Request) -> str:
    return request.messages[-1].content


def plan_steps(
    skills: list[_Skill], required: list[str], present: set[str], inputs: dict[str, str]
) -> tuple[list[_Skill], list[str]]:
    """Skills in run order that produce `required`, and the outputs no skill produces."""
    chosen: list[_Skill] = []
    missing: list[str] = []
    need = [r for r in required if r not in present]
    made = set(present)
    while need:
        target = need.pop(0)
        if target in made:
            continue
        producers = [s for s in skills if target in s.outputs and fill(s.usage, inputs)]
        if not producers:
            missing.append(target)
            continue
        # The skill that covers most of what is still needed: a learned pipeline beats its parts.
        best = max(
            producers,
            key=lambda s: (
                len(set(s.outputs) & {*need, target}),
                -sum(i.startswith("outputs/") and i not in made for i in s.inputs),
            ),
        )
        chosen.append(best)
        made |= set(best.outputs)
        need += [i for i in best.inputs if i.startswith("outputs/") and i not in made]
    ordered = sorted(dict.fromkeys(chosen), key=lambda s: _stage(s, chosen))
    return ordered, missing


def _stage(skill: _Skill, chosen: list[_Skill]) -> tuple[int, int]:
    """Producers before consumers; ties by workflow stage in the skill's name."""
    depth = 0
    frontier = {i for i in skill.inputs if i.startswith("outputs/")}
    for other in chosen:
        if frontier & set(other.outputs):
            depth = max(depth, _stage(other, chosen)[0] + 1)
    stage = next((i for i, s in enumerate(_STAGES) if s in skill.name), len(_STAGES))
    return depth, stage


def fill(usage: str, inputs: dict[str, str]) -> str | None:
    """The usage line with every placeholder filled, or None when an input is missing."""
    missing = [
        m.group(1)
        for m in _PLACEHOLDER.finditer(usage)
        if m.group(1) not in inputs and m.group(2) is None
    ]
    if missing:
        return None
    return _PLACEHOLDER.sub(lambda m: shlex.quote(str(inputs.get(m.group(1), m.group(2)))), usage)


def _act(request: Request) -> ActionPlan:
    text = _user(request)
    required = _bullets(_section(text, "Required outputs"))
    present = set(_bullets(_section(text, "Files already in the attempt")))
    inputs = _inputs(text)
    steps, _missing = plan_steps(_skills(text), required, present, inputs)
    commands = [c for c in (fill(s.usage, inputs) for s in steps) if c is not None]
    return ActionPlan(commands=commands)


def _report(request: Request) -> Report:
    text = _user(request)
    claims = []
    for name, value, artifact, measure, rest in _CLAIM.findall(_section(text, "Command results")):
        extra = dict(part.split("=", 1) for part in rest.split() if "=" in part)
        claims.append(
            Claim(
                name=name,
                value=float(value),
                artifact=artifact,
                measure=Measure(measure),
                element=extra.get("element"),
                attribute=extra.get("attribute"),
                key=extra.get("key"),
            )
        )
    made = set(_bullets(_section(text, "Outputs")))
    required = _bullets(_section(text, "Required outputs"))
    done = all(r in made for r in required)
    summary = f"Ran {text.count(chr(10) + '$ ')} commands; produced {len(made)} files."
    return Report(summary=summary, success=done, claims=claims[:20])


def _critic(request: Request) -> CriticVerdict:
    text = _user(request)
    reasons = []
    failed = [
        line
        for line in _section(text, "Commands").splitlines()
        if line.startswith("-> ") and not line.startswith("-> exit 0 ")
    ]
    if failed:
        reasons.append(f"{len(failed)} command(s) failed")
    sizes = dict(re.findall(r"^- (\S+) \((\d+) bytes\)", _section(text, "Outputs"), re.M))
    for required in _bullets(_section(text, "Required outputs")):
        if int(sizes.get(required, "0")) == 0:
            reasons.append(f"{required} is missing or empty")
    if _section(text, "Claims").strip() == "none":
        reasons.append("the report makes no checkable claim")
    if reasons:
        return CriticVerdict(decision=Decision.revise, reasons=reasons, feedback="; ".join(reasons))
    return CriticVerdict(decision=Decision.accept, reasons=["commands, outputs and claims agree"])


def _consolidate(request: Request) -> Consolidation:
    text = _user(request)
    used = _skills(_section(text, "Skills used"))
    covering = _section(text, "Skills that already produce every required output").strip()
    if "accepted" not in _section(text, "Verdict") or len(used) < 3 or covering != "none":
        return Consolidation(action=MemoryAction.none, reason="no new reusable composition")
    required = _bullets(_section(text, "Required outputs"))
    stems = sorted({Path(r).name.split(".")[0] for r in required})
    name = re.sub(r"[^a-z0-9-]", "-", f"pipeline-{'-'.join(stems)}".lower())[:64].strip("-")
    defaults: dict[str, str | None] = {}
    for s in used:
        for m in _PLACEHOLDER.finditer(s.usage):
            defaults[m.group(1)] = defaults.get(m.group(1)) or m.group(2)
    params = sorted(defaults)
    produced = {o for s in used for o in s.outputs}
    inputs = params + sorted(
        {i for s in used for i in s.inputs if i.startswith("outputs/")} - produced
    )
    usage = f"python skills/{name}/scripts/pipeline.py " + " ".join(
        f"--{p} {{{p}={defaults[p]}}}" if defaults[p] is not None else f"--{p} {{{p}}}"
        for p in params
    )
    script = _pipeline_script([s.usage for s in used], defaults)
    steps = ", ".join(f"[[{s.name}]]" for s in used)
    return Consolidation(
        action=MemoryAction.new_skill,
        skill=SkillDraft(
            name=name,
            description=(
                f"Produce {', '.join(required)} in one run by chaining "
                f"{', '.join(s.name for s in used)}."
            ),
            tags=["pipeline", *sorted({t for t in stems})],
            inputs=inputs,
            outputs=sorted(produced),
            links=[s.name for s in used],
            usage=usage,
            body=f"Runs {steps} in order with the given parameters.",
            scripts=[
                ScriptFile(path="scripts/pipeline.py", language=Language.python, content=script)
            ],
        ),
        reason=f"an accepted composition of {len(used)} skills that no skill covers",
    )


def _pipeline_script(usages: list[str], defaults: dict[str, str | None]) -> str:
    arguments = [
        f'parser.add_argument("--{p}", required=True)'
        if d is None
        else f'parser.add_argument("--{p}", default={d!r})'
        for p, d in defaults.items()
    ]
    lines = [
        '"""Run a learned chain of skills; each step is one skill\'s usage line."""',
        "",
        "import argparse",
        "import re",
        "import shlex",
        "import subprocess",
        "",
        "parser = argparse.ArgumentParser()",
        *arguments,
        "args = vars(parser.parse_args())",
        f"STEPS = {usages!r}",
        "for step in STEPS:",
        "    line = re.sub(",
        "        r'\\{(\\w+)(?:=([^}]*))?\\}',",
        "        lambda m: shlex.quote(str(args.get(m.group(1)) or m.group(2))),",
        "        step,",
        "    )",
        "    print('$', line, flush=True)",
        "    subprocess.run(shlex.split(line), check=True)",
        "",
    ]
    return "\n".join(lines)


def _curriculum(request: Request) -> ProposedTask:
    text = _user(request)
    coverage = re.findall(r"^- (\w+): (\d+) attempted, (\d+) accepted", text, re.M)
    accepted = sum(int(a) for _, _, a in coverage)
    tier = min(4, 1 + accepted // 2)
    counts = {c: int(a) for c, _, a in coverage}
    options = [p for p in PRACTICE if p[1] <= tier] or list(PRACTICE[:1])
    top = max(p[1] for p in options)
    options = [p for p in options if p[1] == top]
    category, level, template, inputs, outputs = min(
        options,
        key=lambda p: (
            counts.get(p[0].value, 0),
            (PRACTICE.index(p) + request.seed) % len(PRACTICE),
        ),
    )
    return ProposedTask(
        category=category,
        tier=level,
        text=template.format(**inputs),
        inputs=[InputValue(name=k, value=v) for k, v in inputs.items()],
        required_outputs=outputs,
    )


def _select(request: Request) -> Selection:
    names = re.findall(r"^- (skill|page) (\S+) \(score", _user(request), re.M)
    skills = [n for kind, n in names if kind == "skill"]
    pages = [n for kind, n in names if kind == "page"][:1]
    return Selection(load=skills + pages)


def script_lab(model: ScriptedModel) -> ScriptedModel:
    """Register the scripted policy's answers for every `lab.*` purpose on `model`."""
    model.on("lab.curriculum", _curriculum)
    model.on("lab.select", _select)
    model.on("lab.act", _act)
    model.on("lab.report", _report)
    model.on("lab.critic", _critic)
    model.on("lab.consolidate", _consolidate)
    return model
