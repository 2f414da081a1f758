"""The installed SUMO's own catalogue: its tools and the outputs sumo writes, by workflow stage.

The curriculum draws from this, by coverage, rather than from a fixed list: the binaries of
`$SUMO_HOME/bin` (the GUIs aside), the Python tools at the top of `$SUMO_HOME/tools`, and each
file output of `sumo --help` (`--fcd-output`, `--emission-output`, ...). A tool's `--help` is
also what an agent reads to learn it: `parse_help` turns it into options, each an input file,
an output file or a value, for binaries and for argparse tools alike; an option that takes the
junctions a tool puts traffic lights at (netconvert's `--tls.set`) is `junctions`, and one
that sets the lights' type `light-type`, whose values SUMO's own schema lists
(`light_types`).
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache

from simulacra.lab.sandbox import sumo_home
from simulacra.lab.tasks import Category

_GUI = frozenset({"sumo-gui", "netedit", "emissionsMap", "emissionsDrivingCycle"})
# Tools and outputs that need what a practice run on a grid of cars has not: the network
# (osmGet fetches from the web), persons, rail, electric vehicles, a GUI.
_UNREACHABLE = re.compile(
    r"osmget|webwizard|person|rail|charging|overhead|substation|battery|elechybrid|^bt-|gui|vtk|"
    r"deadlock|stop-output|amitran"
)
# Name fragments that place a tool or an output in a stage, most specific first.
_STAGES: tuple[tuple[str, Category], ...] = (
    ("sampler", Category.calibration),
    ("dfrouter", Category.calibration),
    ("calibrat", Category.calibration),
    ("flowrouter", Category.calibration),
    ("tls", Category.signals),
    ("emission", Category.analysis),
    ("queue", Category.analysis),
    ("statistic", Category.analysis),
    ("countedge", Category.analysis),
    ("lanechange", Category.analysis),
    ("collision", Category.analysis),
    ("plot", Category.analysis),
    ("net", Category.network),
    ("osm", Category.network),
    ("polyconvert", Category.network),
    ("od2trips", Category.demand),
    ("router", Category.demand),
    ("trips", Category.demand),
    ("route", Category.demand),
    ("activitygen", Category.demand),
    ("flows", Category.demand),
    ("vehtype", Category.demand),
    ("sumo", Category.simulation),
    ("output", Category.simulation),
)
_SECTION = re.compile(r"^(\w[\w /-]*) Options:$")
_BINARY = re.compile(
    r"^  (?:-(?P<short>\w), )?--(?P<name>[\w.-]+)(?: (?P<kind>[A-Z][A-Z\[\]]*))?\s+(?P<help>.*)$"
)
_ARGPARSE = re.compile(
    r"^  (?:-(?P<short>\w+)(?: [A-Z_]+)?, )?--(?P<name>[\w.-]+)(?: (?P<kind>[A-Z_]+))?"
    r"(?:\s{2,}(?P<help>.*))?$"
)
_VALUES = frozenset({"INT", "FLOAT", "TIME", "STR"})
# An option's help, read whole (it runs on over indented lines), that says it takes the
# junctions to put traffic lights at, and the one that gives their type.
_JUNCTIONS = re.compile(r"\bjunctions to be controlled\b", re.I)
_LIGHT_TYPE = re.compile(r"^tls\.(?:default-)?type$")
_XSD = "{http://www.w3.org/2001/XMLSchema}"
# Every tool's own options about its help and its configuration files, not about traffic.
_OWN = frozenset(
    {"help", "configuration-file", "save-configuration", "save-template", "save-schema"}
    | {"save-commented", "version"}
)


@dataclass(frozen=True)
class Option:
    """One option of a tool: `role` is `in` (a file it reads), `out` (a file it writes),
    `value`, `flag`, `junctions` (ids of junctions to control by lights) or `light-type`."""

    name: str
    role: str
    kind: str
    short: str
    help: str

    def line(self) -> str:
        alias = f" ({self.short})" if self.short else ""
        return f"- {self.role} --{self.name} {self.kind or 'BOOL'}{alias}: {self.help}"


@dataclass(frozen=True)
class Item:
    """A capability of the installed SUMO: a tool, or one output option of sumo."""

    stage: Category
    tool: str
    option: str = ""
    help: str = ""

    @property
    def label(self) -> str:
        return f"{self.tool} --{self.option}" if self.option else self.tool

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower().removesuffix(".py")).strip("-")

    @property
    def command(self) -> str:
        """How the tool is called in the sandbox."""
        return f"python $SUMO_HOME/tools/{self.tool}" if self.tool.endswith(".py") else self.tool


def stage_of(name: str) -> Category | None:
    low = name.lower()
    return next((stage for part, stage in _STAGES if part in low), None)


def parse_help(text: str) -> list[Option]:
    """The options a tool's `--help` lists, each with its role (read from its whole help; the
    option keeps its first line)."""
    found: list[tuple[re.Match[str], str, list[str]]] = []
    section = ""
    for line in text.splitlines():
        head = _SECTION.match(line)
        if head:
            section = head.group(1).lower()
            continue
        match = _BINARY.match(line) if section else _ARGPARSE.match(line)
        if match is not None:
            found.append((match, section, [(match["help"] or "").strip()]))
        elif found and line.startswith("    ") and line.strip():
            found[-1][2].append(line.strip())
    return [
        Option(m["name"], _role(m["name"], m["kind"] or "", section, " ".join(lines)),
               m["kind"] or "", m["short"] or "", lines[0])
        for m, section, lines in found
        if m["name"] not in _OWN and section != "configuration"
    ]  # fmt: skip


def _role(name: str, kind: str, section: str, help: str = "") -> str:
    if kind.endswith("[]") and _JUNCTIONS.search(help):
        return "junctions"
    if _LIGHT_TYPE.match(name):
        return "light-type"
    filelike = kind == "FILE" or kind.endswith(("FILE", "FILES"))
    if filelike and (section == "output" or name.endswith("output") or name == "output-file"):
        return "out"
    if not section and kind.startswith("OUT"):
        return "out"
    if filelike and section in ("input", ""):
        return "in"
    if kind in _VALUES or (not section and kind):
        return "value"
    return "flag"


@cache
def catalogue() -> tuple[Item, ...]:
    """Every tool and sumo output of the installed SUMO with a stage (cached: it asks sumo)."""
    home = sumo_home()
    if home is None:
        return ()
    items: list[Item] = []
    for path in sorted((home / "bin").iterdir()):
        stage = stage_of(path.name)
        if path.name not in _GUI and path.name != "sumo" and stage is not None:
            items.append(Item(stage, path.name))
    for path in sorted((home / "tools").glob("*.py")):
        stage = stage_of(path.stem)
        if stage is not None and not _UNREACHABLE.search(path.stem.lower()):
            items.append(Item(stage, path.name))
    sumo = subprocess.run(
        [str(home / "bin" / "sumo"), "--help"], capture_output=True, text=True, check=False
    )
    for option in parse_help(sumo.stdout):
        reachable = not _UNREACHABLE.search(option.name)
        if option.role == "out" and option.name.endswith("-output") and reachable:
            stage = stage_of(option.name) or Category.simulation
            items.append(Item(stage, "sumo", option.name, option.help))
    return tuple(items)


@cache
def light_types() -> frozenset[str]:
    """The types of traffic light the installed SUMO knows (`static`, `actuated`, ...), as its
    own schema enumerates them; none without SUMO."""
    home = sumo_home()
    path = home / "data" / "xsd" / "types" / "base.xsd" if home is not None else None
    if path is None or not path.is_file():
        return frozenset()
    for simple in ET.parse(path).getroot().iter(f"{_XSD}simpleType"):
        if simple.get("name") == "tlTypeType":
            return frozenset(str(e.get("value")) for e in simple.iter(f"{_XSD}enumeration"))
    return frozenset()
