"""How the scripted policy composes a call of a tool it has only read about.

A page learned from a tool's `--help`, or a skill that wraps a tool, lists its options, each
`in` (a file it reads), `out` (a file it writes), `value` or `flag`, under a `Call` heading
that says how to invoke it. The policy binds the task's files to them by name: a file whose
name parts match an option's words (`districts.taz.xml` and `--taz-files`, `town.rou.xml` and
`--route-files`), a required output to the output option it names (`fcd.xml` and
`--fcd-output`, else the tool's `--output-file`), a task input to the value option of its name
(`seed`, `end`), a `--no-X` flag to a task that asks for it (`without turnarounds`), the
junctions a task names to an option that takes them (`--tls.set`; the ids as the network it
was given holds them, `junctions`) and the type of light a task names to the option that sets
it (`--tls.default-type actuated`; the types SUMO's schema lists). A binding
of an option to a kind of file that a recorded call failed with is not made again: that is how
a page's record of a failure corrects the next call.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simulacra.lab.catalogue import Option, light_types
from simulacra.lab.scripted.chains import Producer
from simulacra.lab.scripted.junctions import chosen, listing

_OPTION = re.compile(
    r"^- (in|out|value|flag|junctions|light-type) --([\w.-]+) (\S+)(?: \(([^)]*)\))?: ?(.*)$", re.M
)
_CALL = re.compile(r"#+ Call\s*```[^\n]*\n(.+?)\n```", re.S)
_FAILED = re.compile(r"^- failed: `([^`]+)`", re.M)
_WRAPS = re.compile(r"^- wraps: `([^`]+)`", re.M)
_GENERIC = frozenset(
    {"file", "files", "output", "input", "prefix", "outputs", "practice", "given", "type"}
    | {"format", "xml", "txt", "csv", "json", "the", "of", "and"}
)


@dataclass(frozen=True)
class Tool:
    """A tool as memory describes it: how to call it, its options, the calls that failed."""

    name: str  # the page or the skill
    call: str
    options: tuple[Option, ...]
    failed: tuple[str, ...]
    skill: bool
    wraps: str = ""  # the tool a skill's script runs

    @property
    def tool(self) -> str:
        """The tool's own name (`od2trips`, `tlsCoordinator`), lower case."""
        call = shlex.split(self.wraps or self.call)
        program = call[1] if call[0] == "python" and len(call) > 1 else call[0]
        return program.rsplit("/", 1)[-1].removesuffix(".py").lower()


def tools(text: str, marker: str) -> list[Tool]:
    """The tools described by the `### page: ` or `### skill: ` blocks of a prompt section."""
    found = []
    for block in re.split(rf"^### {marker}: ", text, flags=re.M)[1:]:
        name = block.partition("\n")[0].strip()
        call = _CALL.search(block)
        options = tuple(
            Option(m[2], m[1], "" if m[3] == "BOOL" else m[3], m[4] or "", m[5])
            for m in _OPTION.finditer(block)
        )
        if call is not None and options:
            failed = tuple(_FAILED.findall(block))
            wraps = _WRAPS.search(block)
            found.append(
                Tool(
                    name,
                    call.group(1).strip(),
                    options,
                    failed,
                    marker == "skill",
                    wraps.group(1) if wraps else "",
                )
            )
    return found


def words(name: str) -> set[str]:
    """The parts of a file or option name that can name a thing (`town.rou.xml`: town, rou)."""
    parts = re.split(r"[^a-z0-9]+", name.lower().rsplit("/", 1)[-1])
    return {p for p in parts if len(p) >= 2 and not p.isdigit() and p not in _GENERIC}


def matches(a: set[str], b: set[str]) -> bool:
    """A shared word, or one a prefix of the other (`rou` and `route`, `nod` and `node`)."""
    return any(
        x == y
        or (min(len(x), len(y)) >= 3 and x[:3] == y[:3] and (x.startswith(y) or y.startswith(x)))
        for x in a
        for y in b
    )


def kind(path: str) -> str:
    """A file's kind: its name after the first dot (`town.net.xml`: net.xml)."""
    name = path.rsplit("/", 1)[-1]
    return name.partition(".")[2] or name


def _asked(flag: str, text: str) -> bool:
    """A `--no-X` flag the task asks for in words: `without X` or `no X`."""
    thing = flag.removeprefix("no-")
    return re.search(rf"\b(?:without|no) {re.escape(thing)}\b", text.lower()) is not None


def _lights(tool: Tool, read: Sequence[str], text: str, seen: str) -> list[tuple[str, str]]:
    """The junctions to control and the type of light, where the tool takes them, the task
    names them and an earlier step read the network the call reads."""
    found: list[tuple[str, str]] = []
    nets = [listed for path in read if (listed := listing(seen, path)) is not None]
    ids = chosen(text, *nets[0]) if nets else []
    for option in tool.options:
        if option.role == "junctions" and ids:
            found.append((option.name, ",".join(ids)))
    asked = set(re.findall(r"\w+", text))
    kinds = sorted(light_types() & asked)
    if ids and kinds:
        found += [(o.name, kinds[0]) for o in tool.options if o.role == "light-type"]
    return found


def failed_pairs(calls: Sequence[str]) -> set[tuple[str, str]]:
    """(option, kind of file) of every file a failed call passed."""
    pairs = set()
    for call in calls:
        tokens = shlex.split(call)
        for option, value in itertools.pairwise(tokens):
            if option.startswith("--") and value.startswith("outputs/"):
                pairs.add((option[2:], kind(value)))
    return pairs


def compose(
    tool: Tool,
    required: Sequence[str],
    present: Sequence[str],
    makeable: Sequence[str],
    inputs: Mapping[str, str],
    text: str = "",
    seen: str = "",
) -> Producer | None:
    """The tool's call for this task (`text`), or None when no required output or no file
    binds. `seen` is what earlier steps printed (a network's junctions)."""
    outs: list[tuple[str, str]] = []
    pending = [r for r in required if r not in present and r not in makeable]
    free = [o for o in tool.options if o.role == "out"]
    for target in pending:
        option = next((o for o in free if matches(words(target), words(o.name))), None)
        if option is not None:
            outs.append((option.name, target))
            free.remove(option)
    # A plain `--output-file` says nothing of what it writes: only a task that names the tool.
    if not outs and len(pending) == 1 and tool.tool in text.lower():
        default = next((o for o in free if o.name == "output-file"), None)
        if default is not None:
            outs.append((default.name, pending[0]))
    if not outs:
        return None
    avoid = failed_pairs(tool.failed)
    ins: list[tuple[str, str]] = []
    taken = {t for _, t in outs}
    for path in dict.fromkeys([*present, *makeable, *required]):
        if path in taken:
            continue
        option = next(
            (
                o
                for o in tool.options
                if o.role == "in"
                and o.name not in {n for n, _ in ins}
                and (o.name, kind(path)) not in avoid
                and matches(words(path), words(o.name))
            ),
            None,
        )
        if option is not None:
            ins.append((option.name, path))
            taken.add(path)
    if not ins:
        return None
    values = [o.name for o in tool.options if o.role == "value" and o.name in inputs]
    flags = [o.name for o in tool.options if o.role == "flag" and _asked(o.name, text)]
    parts = [tool.call]
    parts += [f"--{o} {shlex.quote(p)}" for o, p in ins]
    parts += [f"--{v} {{{v}}}" for v in values]
    parts += [f"--{f}" for f in flags]
    parts += [f"--{o} {shlex.quote(v)}" for o, v in _lights(tool, [p for _, p in ins], text, seen)]
    parts += [f"--{o} {shlex.quote(p)}" for o, p in outs]
    return Producer(
        tool.name,
        tuple(p for _, p in ins) + tuple(values),
        tuple(p for _, p in outs),
        " ".join(parts),
        page=not tool.skill,
    )
