"""How the scripted policy reads the prompts and chains what it read into commands.

A producer is a loaded skill (its usage line, declared inputs and outputs) or a tool call a
loaded page records (its usage line, the files it reads and writes, its parameters, and the
settings it was observed with). Chaining runs backwards from the required outputs: for each
missing output a producer that makes it, then what that producer reads, and so on; skills
before pages, since a skill's script also prints the claims a report needs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simulacra.llm import Request

_USAGE = re.compile(r"#+ Usage\s*```[^\n]*\n(.+?)\n```", re.S)
_PLACEHOLDER = re.compile(r"\{(\w+)(?:=([^}]*))?\}")
_STAGES = ("network", "demand", "signals", "simulation", "calibration", "analysis", "plots")


@dataclass(frozen=True)
class Producer:
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    usage: str
    page: bool = False  # a tool call recorded in a page, not a skill
    observed_with: tuple[tuple[str, str], ...] = ()  # (input, value) pairs


def section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def bullets(text: str) -> list[str]:
    return [line[2:].split(" (")[0].strip() for line in text.splitlines() if line.startswith("- ")]


def inputs_of(text: str) -> dict[str, str]:
    pairs = (line.split(": ", 1) for line in section(text, "Inputs").splitlines() if ": " in line)
    return {k.strip(): v.strip() for k, v in pairs}


def user(request: Request) -> str:
    return request.messages[-1].text


def _names(value: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in value.split(",") if s.strip() and s.strip() != "none")


def skills(text: str) -> list[Producer]:
    """The skills loaded in full in a prompt (`### skill: ` blocks with a usage line)."""
    found = []
    for block in re.split(r"^### skill: ", text, flags=re.M)[1:]:
        name, _, rest = block.partition("\n")
        fields = dict(line.split(": ", 1) for line in rest.splitlines()[:2] if ": " in line)
        usage = _USAGE.search(rest)
        if usage is not None:
            found.append(
                Producer(
                    name.strip(),
                    _names(fields.get("inputs", "")),
                    _names(fields.get("outputs", "")),
                    usage.group(1).strip(),
                )
            )
    return found


def tool_calls(text: str) -> list[Producer]:
    """The tool calls recorded in the pages loaded in a prompt (`### page: ` blocks with a
    usage line and `- reads:`, `- writes:`, `- parameters:`, `- observed with:` lines)."""
    found = []
    for block in re.split(r"^### page: ", text, flags=re.M)[1:]:
        block = re.split(r"\n#{2,3} ", block, maxsplit=1)[0]  # up to the next section or block
        name = block.partition("\n")[0].strip()
        usage = _USAGE.search(block)
        fields = dict(re.findall(r"^- (reads|writes|parameters|observed with): (.*)$", block, re.M))
        if usage is None or "writes" not in fields:
            continue
        settings = [s.partition("=") for s in _names(fields.get("observed with", ""))]
        observed = tuple((k, v) for k, eq, v in settings if eq)
        found.append(
            Producer(
                name,
                _names(fields.get("parameters", "")) + _names(fields.get("reads", "")),
                _names(fields["writes"]),
                usage.group(1).strip(),
                page=True,
                observed_with=observed,
            )
        )
    return found


def same_value(a: str, b: str) -> bool:
    """Equal as numbers when both are numbers (`200` and `200.0`), else as text."""
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def applies(producer: Producer, inputs: Mapping[str, str]) -> bool:
    """Every placeholder can be filled, and the settings it was observed with hold here."""
    settings = producer.observed_with
    return fill(producer.usage, inputs) is not None and all(
        k in inputs and same_value(inputs[k], v) for k, v in settings
    )


def plan_steps(
    producers: Sequence[Producer],
    required: Sequence[str],
    present: set[str],
    inputs: Mapping[str, str],
) -> list[Producer]:
    """Producers in run order that make `required`; an output none makes is left out. A
    learned pipeline runs several steps in one command, so nothing can run between them: when
    another chosen producer reads one of its outputs (a signal program made from its network,
    which its own simulation step should have loaded), the plan is made again without it."""
    usable = [p for p in producers if applies(p, inputs)]
    while True:
        chosen = _choose(usable, required, present)
        read = {i for p in chosen for i in p.inputs}
        inside = [p for p in chosen if p.name.startswith("pipeline-") and set(p.outputs) & read]
        if not inside:
            return sorted(dict.fromkeys(chosen), key=lambda p: _stage(p, chosen))
        usable = [p for p in usable if p not in inside]


def _choose(
    usable: Sequence[Producer], required: Sequence[str], present: set[str]
) -> list[Producer]:
    chosen: list[Producer] = []
    need = [r for r in required if r not in present]
    made = set(present)
    while need:
        target = need.pop(0)
        if target in made:
            continue
        makers = [p for p in usable if target in p.outputs]
        if not makers:
            continue
        # A skill before a page; then the one that covers most of what is still needed (a
        # learned pipeline beats its parts); then the one that needs least that is missing.
        best = max(
            makers,
            key=lambda p: (
                not p.page,
                len(set(p.outputs) & {*need, target}),
                -sum(i.startswith("outputs/") and i not in made for i in p.inputs),
            ),
        )
        chosen.append(best)
        made |= set(best.outputs)
        need += [i for i in best.inputs if i.startswith("outputs/") and i not in made]
    return chosen


def _stage(producer: Producer, chosen: list[Producer]) -> tuple[int, int]:
    """Producers before consumers; ties by workflow stage in the name."""
    depth = 0
    frontier = {i for i in producer.inputs if i.startswith("outputs/")}
    for other in chosen:
        if frontier & set(other.outputs):
            depth = max(depth, _stage(other, chosen)[0] + 1)
    stage = next((i for i, s in enumerate(_STAGES) if s in producer.name), len(_STAGES))
    return depth, stage


def fill(usage: str, inputs: Mapping[str, str]) -> str | None:
    """The usage line with every placeholder filled, or None when an input is missing."""
    missing = [
        m.group(1)
        for m in _PLACEHOLDER.finditer(usage)
        if m.group(1) not in inputs and m.group(2) is None
    ]
    if missing:
        return None
    return _PLACEHOLDER.sub(lambda m: shlex.quote(str(inputs.get(m.group(1), m.group(2)))), usage)


def placeholders(usage: str) -> dict[str, str | None]:
    """Each placeholder of a usage line and its default (None when it has none)."""
    found: dict[str, str | None] = {}
    for m in _PLACEHOLDER.finditer(usage):
        found[m.group(1)] = found.get(m.group(1)) or m.group(2)
    return found
