"""What the scripted policy writes to memory from an episode.

- From a rejected one, a page of what failed and why, never a skill; from a tool's help, a
  page of its options; from a call composed from such a page, a skill (`tool_memory`).

- A pipeline skill: when three or more skills ran in a chain that no skill covers, a script
  that runs their usage lines in order (procedural memory).
- A tool-call page: a SUMO tool call that a skill's script echoed (`$ netgenerate ...`),
  with the task's values put back as `{placeholders}`, the files it read and wrote, and the
  settings it was observed with (semantic memory: what the simulator's own tools do, with the
  episode as its source). One page per call, written once: repeating a success adds nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

from simulacra.lab.prompts import (
    Consolidation,
    Language,
    MemoryAction,
    PageDraft,
    ScriptFile,
    SkillDraft,
)
from simulacra.lab.scripted.chains import (
    Producer,
    bullets,
    inputs_of,
    placeholders,
    same_value,
    section,
    skills,
    user,
)
from simulacra.lab.scripted.tool_memory import established, failed, used
from simulacra.llm import Request

_SKILL_RUN = re.compile(r"skills/([a-z0-9-]+)/")
_PLAIN = re.compile(r"[\w$@%+=:,./{}-]+")


def consolidate(request: Request) -> Consolidation:
    text = user(request)
    if "accepted" not in section(text, "Verdict"):
        lesson = failed(text)
        return Consolidation(
            action=MemoryAction.new_page,
            page=lesson,
            reason=f"a rejected episode: what failed and why ({lesson.summary[:200]})",
        )
    options = established(text)
    if options is not None:
        return Consolidation(
            action=MemoryAction.new_page,
            page=options,
            reason=f"a tool's options, established from its help ({options.title})",
        )
    use = used(text)
    if use is not None:
        return Consolidation(
            action=MemoryAction.both,
            skill=use[0],
            page=use[1],
            reason=f"a call composed from {use[1].name} succeeded: a skill wraps it",
        )
    skill = _pipeline(text)
    page = _tool_page(text)
    action = {
        (True, True): MemoryAction.both,
        (True, False): MemoryAction.new_skill,
        (False, True): MemoryAction.new_page,
        (False, False): MemoryAction.none,
    }[(skill is not None, page is not None)]
    reasons = []
    if skill is not None:
        reasons.append(f"an accepted chain of {len(skill.links)} skills that no skill covers")
    if page is not None:
        reasons.append(f"a tool call not yet in memory ({page.title})")
    return Consolidation(
        action=action,
        skill=skill,
        page=page,
        reason="; ".join(reasons) or "no new reusable composition or tool call",
    )


# -- procedural: a pipeline of the skills that ran


def _pipeline(text: str) -> SkillDraft | None:
    used = skills(section(text, "Skills used"))
    covering = section(text, "Skills that already produce every required output").strip()
    if len(used) < 3 or covering != "none":
        return None
    required = bullets(section(text, "Required outputs"))
    stems = sorted({_stem(r) for r in required})
    name = _name("pipeline", *stems)
    defaults: dict[str, str | None] = {}
    for s in used:
        for key, default in placeholders(s.usage).items():
            defaults[key] = defaults.get(key) or default
    params = sorted(defaults)
    produced = {o for s in used for o in s.outputs}
    inputs = params + sorted(
        {i for s in used for i in s.inputs if i.startswith("outputs/")} - produced
    )
    usage = f"python skills/{name}/scripts/pipeline.py " + " ".join(
        f"--{p} {{{p}={defaults[p]}}}" if defaults[p] is not None else f"--{p} {{{p}}}"
        for p in params
    )
    steps = ", ".join(f"[[{s.name}]]" for s in used)
    links = {s.name for s in used}
    # An older pipeline whose steps and outputs this one covers is redundant: lint removes it.
    older = [
        name
        for name, outputs, steps_of in _inventory(section(text, "Skills in memory"))
        if name.startswith("pipeline-") and steps_of <= links and outputs <= produced
    ]
    return SkillDraft(
        name=name,
        description=(
            f"Produce {', '.join(required)} in one run by chaining "
            f"{', '.join(s.name for s in used)}."
        ),
        tags=["pipeline", *stems],
        inputs=inputs,
        outputs=sorted(produced),
        links=[s.name for s in used],
        usage=usage,
        body=f"Runs {steps} in order with the given parameters.",
        supersedes=[n for n in older if n != name],
        scripts=[
            ScriptFile(
                path="scripts/pipeline.py",
                language=Language.python,
                content=_pipeline_script([s.usage for s in used], defaults),
            )
        ],
    )


def _inventory(text: str) -> Iterator[tuple[str, set[str], set[str]]]:
    """(name, outputs, links) of each skill the inventory lists."""
    for line in text.splitlines():
        found = re.match(r"^- ([a-z0-9-]+): outputs (.*); links (.*)$", line)
        if found:
            yield found[1], set(_names(found[2])), set(_names(found[3]))


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip() and n.strip() != "none"]


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


# -- semantic: the SUMO tool calls the skills echoed


def _tool_page(text: str) -> PageDraft | None:
    """A page for the first echoed tool call that memory has no page for."""
    used = {s.name: s for s in skills(section(text, "Skills used"))}
    known = {n.strip() for n in section(text, "Pages in memory").split(",")}
    inputs = inputs_of(text)
    for skill_name, line in _echoed(section(text, "Tool calls the commands echoed")):
        skill = used.get(skill_name)
        # A skill that wraps a tool has the tool's options page already.
        if skill is not None and not skill_name.startswith(
            "use-"
        ):  # a skill run inside a pipeline declares nothing here: skip it
            page = _describe(skill, line, inputs)
            if page.name not in known:
                return page
    return None


def _echoed(text: str) -> Iterator[tuple[str, str]]:
    """(the skill whose script echoed it, the tool call) for each echoed call, in order."""
    skill = ""
    for line in text.splitlines():
        if line.startswith("- `"):
            found = _SKILL_RUN.search(line)
            skill = found.group(1) if found else ""
        elif line.startswith("  $ "):
            call = line[4:].strip()
            found = _SKILL_RUN.search(call)
            if found:  # a pipeline's step: the calls after it are that skill's
                skill = found.group(1)
            elif skill and call:
                yield skill, call


def _describe(skill: Producer, call: str, inputs: Mapping[str, str]) -> PageDraft:
    """The call with the task's values as placeholders, what it reads and writes, and the
    skill's other settings it was observed with."""
    tokens = shlex.split(call)
    tool = PurePosixPath(tokens[1] if tokens[0] == "python" else tokens[0]).name
    tool = tool.removesuffix(".py")
    params = [i for i in skill.inputs if not i.startswith("outputs/") and i in inputs]
    used: list[str] = []
    reads: list[str] = []
    writes: list[str] = []
    shown: list[str] = []
    option = ""
    for token in tokens:
        name, eq, value = token.partition("=") if token.startswith("--") else ("", "", token)
        if token.startswith("--") and not eq:
            option, shown_token = token, token
        else:
            option = name or option
            value = _placeholder(option, value, params, inputs, used)
            _file(option, value, skill, reads, writes)
            shown_token = f"{name}={value}" if eq else value
            option = ""
        shown.append(shown_token if _PLAIN.fullmatch(shown_token) else shlex.quote(shown_token))
    observed = [f"{p}={inputs[p]}" for p in params if p not in used]
    stems = list(dict.fromkeys(_stem(w) for w in writes))
    name = _name("tool", tool, *stems, *(o.replace("=", "-") for o in observed))
    settings = ", ".join(observed) or "none"
    return PageDraft(
        name=name,
        title=f"{tool}: {', '.join(writes) or 'a call'}",
        summary=(
            f"The {tool} call that the {skill.name} skill ran in an accepted episode: it reads "
            f"{', '.join(reads) or 'no file'} and writes {', '.join(writes) or 'no file'}; "
            f"parameters {', '.join(used) or 'none'}; observed with {settings}."
        ),
        keywords=list(dict.fromkeys([tool, *stems, *used, skill.name]))[:12],
        body=(
            f"# {tool}: {', '.join(writes)}\n\nThe [[{skill.name}]] skill ran this {tool} "
            "call in an accepted episode (see sources); the task's values are placeholders.\n\n"
            f"## Usage\n\n```\n{' '.join(shown)}\n```\n\n"
            f"- reads: {', '.join(reads) or 'none'}\n- writes: {', '.join(writes) or 'none'}\n"
            f"- parameters: {', '.join(used) or 'none'}\n- observed with: {settings}\n"
        ),
    )


def _placeholder(
    option: str, value: str, params: list[str], inputs: Mapping[str, str], used: list[str]
) -> str:
    """`{name}` where the option names a parameter (`--grid.number` and `grid`, `--default.
    lanenumber` and `lanes`) whose value the task gave; else the value as it is."""
    if not option:
        return value
    matches = [
        p for p in params if p.removesuffix("s") in option.lower() and same_value(value, inputs[p])
    ]
    if len(matches) != 1:
        return value
    used.append(matches[0])
    return f"{{{matches[0]}}}"


def _file(option: str, value: str, skill: Producer, reads: list[str], writes: list[str]) -> None:
    for part in value.split(","):
        if not part.startswith("outputs/"):
            continue
        if part in skill.outputs or "output" in option:
            writes.append(part)
        else:
            reads.append(part)


def _stem(path: str) -> str:
    return Path(path).name.split(".")[0]


def _name(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower())[:64].strip("-")
