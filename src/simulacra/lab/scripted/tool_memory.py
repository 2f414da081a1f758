"""What the scripted policy writes to memory about a tool it is learning.

- Established: an accepted episode delivered the tool's `--help`; a page `tool-<slug>` keeps
  how to call it and the options that matter (every input file, the outputs the task named or
  the plain `--output-file`, the time and seed values), each with its role and its help.
- Used: an accepted episode ran a call composed from that page; a skill `use-<slug>` wraps
  the tool in a script that echoes the call and claims how many records each output holds,
  its options general (no file or value of the episode), and the page records the call.
- Failed: a rejected episode ran a call composed from the page; the page is revised with the
  call and why it failed (the error its log gave, the findings), and no skill is written. The
  composer does not bind those options to those kinds of file again. A rejected episode that
  ran no such call leaves a lesson page: what was asked, what ran, what the verdicts said.
"""

from __future__ import annotations

import re
import shlex

from simulacra.lab.catalogue import Option, parse_help
from simulacra.lab.prompts import Language, PageDraft, ScriptFile, SkillDraft
from simulacra.lab.scripted.chains import bullets, section
from simulacra.lab.scripted.compose import Tool, kind, tools, words

_HELP_OUTPUT = re.compile(r"^### (outputs/([a-z0-9-]+)\.help\.txt)\n(.*?)(?=^### |\Z)", re.M | re.S)
_VALUES = frozenset({"begin", "end", "seed"})
_MAX_INPUTS = 16
# Options bound from a task's network and words, never from a general value.
_TASK_BOUND = ("junctions", "light-type")
_ERROR = re.compile(r"^.*(?:Error|error:|Traceback|Exception).*$", re.M)


def established(text: str) -> PageDraft | None:
    """The options page of a tool whose help the episode delivered, if memory lacks it."""
    found = _HELP_OUTPUT.search(section(text, "Delivered text outputs"))
    if found is None:
        return None
    path, slug, helptext = found.groups()
    name = f"tool-{slug}"
    if name in _names(section(text, "Pages in memory")):
        return None
    call = _help_call(section(text, "Commands"), path)
    if call is None:
        return None
    asked = words(section(text, "Task"))
    options = [o for o in parse_help(helptext) if _keep(o, asked)]
    ins = [o for o in options if o.role == "in"][:_MAX_INPUTS]
    options = ins + [o for o in options if o.role != "in"]
    if not any(o.role == "out" for o in options):
        return None
    label = call if call.startswith(("sumo", "python")) else call.split()[0]
    named = [o.name for o in options if o.role == "out" and o.name != "output-file"]
    title = f"{label}: its options" + (f" ({', '.join(named)})" if named else "")
    return PageDraft(
        name=name,
        title=title[:200],
        summary=(
            f"How to call {label}, from its --help in an accepted episode: the files it reads "
            f"({', '.join(o.name for o in ins[:6])}...), the files it writes "
            f"({', '.join(o.name for o in options if o.role == 'out')}) and its values."
        )[:1024],
        keywords=list(dict.fromkeys([slug, label.split()[-1], *named, *sorted(asked)[:6]]))[:12],
        body=tool_body(title, call, options, [], []),
    )


def used(text: str) -> tuple[SkillDraft, PageDraft] | None:
    """A skill wrapping the tool whose page composed a command that ran in an accepted
    episode, and the page revised to record the call, when memory has no such skill."""
    found = _page_call(text)
    if found is None:
        return None
    tool, command = found
    slug = tool.name.removeprefix("tool-")
    name = f"use-{slug}"
    if name in _names(section(text, "Skills in memory"), inventory=True):
        return None
    args = shlex.split(command.removeprefix(tool.call))
    general, options = _general(args, tool)
    # The wrapper passes any option on: it lists the ones a task's own network and words bind
    # (junctions to light and their type), so that a call composed from it can bind them too.
    options += [o for o in tool.options if o.role in _TASK_BOUND and o not in options]
    wrapper = f"python skills/{name}/scripts/run.py"
    outputs = [o.name for o in options if o.role == "out"]
    skill = SkillDraft(
        name=name,
        # What it writes first: skills that run one tool for different outputs must not read
        # as near-duplicates to the lint.
        description=(
            "; ".join(f"{o.name}: {o.help}" for o in options if o.role == "out")
            + f" (with {tool.call}; echoes the call, claims each output's records)"
        )[:1024],
        tags=["tool", *sorted(words(slug))][:8],
        inputs=re.findall(r"\{(\w+)\}", general),
        outputs=[],
        links=[tool.name],
        usage=f"{wrapper} {general}"[:400],
        body=f"- wraps: `{tool.call}`\n\n"
        + tool_body(f"Use {tool.call}", wrapper, options, [], []).split("\n", 2)[2],
        scripts=[
            ScriptFile(
                path="scripts/run.py",
                language=Language.python,
                content=_wrapper(tool.call, outputs),
            )
        ],
    )
    page = PageDraft(
        name=tool.name,
        title=f"{tool.call}: its options, one call verified",
        summary=f"How to call {tool.call}; the call {tool.call} {general} ran in an accepted "
        "episode.",
        keywords=_keywords(tool),
        body=tool_body(tool.call, tool.call, list(tool.options), list(tool.failed), [general]),
    )
    return skill, page


def failed(text: str) -> PageDraft:
    """The page of the tool whose composed call failed, revised with the call and why."""
    found = _page_call(text)
    why = _reason(text)
    if found is None:
        return _lesson(text, why)
    tool, command = found
    record = f"{command}`: {why}"
    return PageDraft(
        name=tool.name,
        title=f"{tool.call}: its options, a call that failed",
        summary=f"How to call {tool.call}, and a composed call that failed: {_pathless(why)}"[:300],
        keywords=[*_keywords(tool)[:11], "failed"],
        body=tool_body(tool.call, tool.call, list(tool.options), [*tool.failed, record], []),
    )


def tool_body(
    title: str, call: str, options: list[Option], failures: list[str], verified: list[str]
) -> str:
    lines = [f"# {title}", "", "## Call", "", "```", call, "```", "", "## Options", ""]
    lines += [o.line() for o in options]
    if verified:
        lines += ["", "## Verified", ""] + [f"- `{call} {v}`" for v in verified]
    if failures:
        lines += ["", "## Failed calls", ""] + [f"- failed: `{f}" for f in failures]
    return "\n".join(lines)[:4000]


def _keep(option: Option, asked: set[str]) -> bool:
    if option.role == "in":
        return True
    if option.role == "out":
        return option.name == "output-file" or bool(words(option.name) & asked)
    if option.role == "flag":  # what the tool leaves out on request (`--no-turnarounds`)
        return re.fullmatch(r"no-[a-z]+", option.name) is not None
    if option.role in _TASK_BOUND:
        return True
    return option.role == "value" and option.name in _VALUES


def _help_call(commands: str, path: str) -> str | None:
    for line in commands.splitlines():
        found = re.match(rf"^\$ (.+?) --help > {re.escape(path)}$", line.strip())
        if found:
            return found.group(1)
    return None


def _page_call(text: str) -> tuple[Tool, str] | None:
    """The loaded tool page whose call began one of the final try's commands."""
    loaded = tools(section(text, "Pages loaded"), "page")
    for line in section(text, "Commands").splitlines():
        command = line.removeprefix("$ ").strip()
        for tool in loaded:
            if command.startswith(tool.call + " ") and "--help" not in command:
                return tool, command
    return None


def _general(args: list[str], tool: Tool) -> tuple[str, list[Option]]:
    """The call's arguments with each file a placeholder of its kind and each value a
    placeholder of its name; the options it used."""
    by_name = {o.name: o for o in tool.options}
    parts: list[str] = []
    used: list[Option] = []
    for option, value in zip(args[::2], args[1::2], strict=False):
        known = by_name.get(option.removeprefix("--"))
        # Junction ids and a light's type belong to the episode's network and task.
        if known is None or known.role in _TASK_BOUND:
            continue
        used.append(known)
        holder = re.sub(r"\W+", "_", kind(value)) if value.startswith("outputs/") else known.name
        parts.append(f"{option} {{{holder}}}")
    return " ".join(parts), used


def _wrapper(call: str, outputs: list[str]) -> str:
    return "\n".join(
        [
            f'"""Run {call} as given; echo the call; claim how many records each output holds."""',
            "",
            "import os",
            "import shlex",
            "import subprocess",
            "import sys",
            "import xml.etree.ElementTree as ET",
            "from collections import Counter",
            "",
            f"TOOL = {shlex.split(call)!r}",
            f"OUTPUTS = {outputs!r}",
            "args = sys.argv[1:]",
            'print("$", shlex.join([*TOOL, *args]), flush=True)',
            "subprocess.run([os.path.expandvars(t) for t in TOOL] + args, check=True)",
            "for option, value in zip(args, args[1:]):",
            '    if option.removeprefix("--") in OUTPUTS:',
            "        root = ET.parse(value).getroot()",
            "        tags = Counter(child.tag for child in root)",
            "        if tags:",
            "            tag = tags.most_common(1)[0][0]",
            "            count = len(list(root.iter(tag)))",
            '            name = tag.replace("-", "_")',
            '            print(f"claim {name}_records={count} artifact={value} "',
            '                  f"measure=xml_count element={tag}")',
            "",
        ]
    )


def _reason(text: str) -> str:
    """The first error line of the final try's logs, else the verdicts."""
    errors = _ERROR.findall(section(text, "Logs of the final try"))
    if errors:
        return str(errors[0]).strip()[:300]
    verdicts = bullets(section(text, "Findings and feedback of every attempt"))
    return "; ".join(verdicts)[:300] or "rejected without a finding"


def _lesson(text: str, why: str) -> PageDraft:
    task = section(text, "Task")
    commands = [line for line in section(text, "Commands").splitlines() if line.strip()]
    verdicts = [f"- {v}" for v in bullets(section(text, "Findings and feedback of every attempt"))]
    required = bullets(section(text, "Required outputs"))
    stems = "-".join(sorted({r.rsplit("/", 1)[-1].split(".")[0] for r in required}))
    return PageDraft(
        name=re.sub(r"[^a-z0-9]+", "-", f"lesson-{stems}".lower())[:64].strip("-"),
        # Metadata names the thing that failed, not the file paths: a path's words (practice,
        # outputs) would bring every lesson up for every practice task's query.
        title=f"What failed: {' '.join(sorted(words(' '.join(required))))}"[:200],
        summary=f"A rejected episode: {_pathless(why)}"[:300],
        keywords=list(dict.fromkeys(["failed", *sorted(words(" ".join(required)))]))[:12],
        body="\n".join(
            [
                "# What failed",
                "",
                "## Asked",
                "",
                task.strip()[:1200],
                "",
                "## Ran",
                "",
                *(commands or ["no command: nothing in memory made the required outputs"]),
                "",
                "## Why",
                "",
                *(verdicts or [f"- {why}"]),
            ]
        )[:4000],
    )


def _keywords(tool: Tool) -> list[str]:
    named = [o.name for o in tool.options if o.role == "out" and o.name != "output-file"]
    return list(dict.fromkeys([tool.name.removeprefix("tool-"), *tool.call.split()[-1:], *named]))[
        :12
    ]


def _pathless(text: str) -> str:
    return re.sub(r"outputs/\S+", "an output", text)


def _names(text: str, *, inventory: bool = False) -> set[str]:
    if inventory:
        return set(re.findall(r"^- ([a-z0-9-]+):", text, re.M))
    return {n.strip() for n in text.split(",")}
