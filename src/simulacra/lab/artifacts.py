"""What an artifact is and whether two copies of it agree.

SUMO's tools start every file they write with a comment naming the tool and holding its whole
configuration (`<!-- generated on <time> by Eclipse SUMO sumo 1.28.0 <sumoConfiguration>...`);
`sumo_header` reads it, so that a verifier can run the same tool on the same configuration.
Two copies agree when their bytes are identical once the two things SUMO does not reproduce are
set aside: the generation time in those comments, and the wall-clock figures of the statistics
output's `<performance>` element (`NONDETERMINISTIC`). Where bytes still differ, SUMO files
agree within `TOLERANCE`: the same text, and every number within one unit of its last written
decimal (the rounding a floating-point difference between two machines can move). Any other
file must be identical. A PNG is checked as a PNG: its chunks and their CRCs, nothing after
IEND, pixels that decode, and more than a blank canvas.
"""

from __future__ import annotations

import io
import re
import struct
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_HEADER = re.compile(
    rb"<!-- generated on (?P<when>[^\n]*?) by Eclipse SUMO (?P<tool>\S+) (?P<version>[^\n]*)\n"
    rb"(?P<config>.*?)-->",
    re.S,
)
_WHEN = re.compile(rb"(<!-- generated on )[^\n]*?( by Eclipse SUMO )")
# TraCI's port is a free one found at start: a rerun's differs. The record shows the process
# that held it (`reproduce`), so two copies may differ there.
_PORT = re.compile(rb'(<remote-port value=")[^"]*(")')
NONDETERMINISTIC = (
    "clockBegin",
    "clockEnd",
    "clockDuration",
    "traciDuration",
    "realTimeFactor",
    "vehicleUpdatesPerSecond",
    "personUpdatesPerSecond",
)
_PERFORMANCE = re.compile(rb"<performance [^>]*>")
_WALL = re.compile(rb"\b(" + b"|".join(n.encode() for n in NONDETERMINISTIC) + rb')="[^"]*"')
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")
TOLERANCE = "one unit in the last written decimal of every number"
# Roots of files only SUMO's own tools write: a network, and what a simulation outputs.
SUMO_ONLY = frozenset(
    {
        "net",
        "tripinfos",
        "statistics",
        "summary",
        "meandata",
        "fcd-export",
        "emission-export",
        "detector",
        "netstate",
        "queue-export",
        "full-export",
        "lanechanges",
        "collisions",
        "tlsStates",
        "tlsSwitches",
    }
)
# Elements only SUMO's outputs hold, whatever their root is called: a tag, or a tag with an
# attribute only SUMO writes on it.
SUMO_ELEMENTS = frozenset(
    {"tripinfo", "personinfo", "vehicleTripStatistics", "pedestrianStatistics", "teleports",
     "safety", "timestep", "emission-export", "rideStatistics", "transportStatistics"}
)  # fmt: skip
SUMO_SIGNATURES = frozenset(
    {("step", "meanTravelTime"), ("step", "meanWaitingTime"), ("junction", "incLanes"),
     ("lane", "shape"), ("edge", "sampledSeconds"), ("lane", "sampledSeconds"),
     ("interval", "nVehContrib"), ("vehicles", "inserted"), ("tlsState", "phase")}
)  # fmt: skip
_SHAPE_ELEMENTS = 2000  # elements read to tell a SUMO-shaped file
_PNG = b"\x89PNG\r\n\x1a\n"
_HEAD_BYTES = 1 << 16  # a header comment sits at the top of its file


@dataclass(frozen=True)
class SumoHeader:
    """The tool that wrote a file and the configuration it ran with."""

    tool: str
    version: str
    config: str

    @property
    def python_tool(self) -> bool:
        return self.tool.endswith(".py")

    @property
    def controlled(self) -> bool:
        """A run steered through TraCI: its outputs depend on the controlling script."""
        return "<remote-port " in self.config

    @property
    def port(self) -> str | None:
        """The TraCI port the run listened on, as its configuration writes it."""
        found = re.search(r'<remote-port value="(\d+)"', self.config)
        return found.group(1) if found else None


def sumo_header(path: Path) -> SumoHeader | None:
    """The first SUMO header comment of a file, or None when it has none."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    match = _HEADER.search(head)
    if match is None or match.start() > 200:
        return None
    return SumoHeader(
        match["tool"].decode(errors="replace"),
        match["version"].decode(errors="replace").strip(),
        match["config"].decode(errors="replace"),
    )


def xml_root(path: Path) -> str | None:
    """The root element's name, or None when the file is not XML."""
    try:
        for _, element in ET.iterparse(path, events=("start",)):
            return str(element.tag)
    except (ET.ParseError, OSError, UnicodeDecodeError):
        return None
    return None


def sumo_shape(path: Path) -> str | None:
    """What makes an XML file one only SUMO writes (its root, or an element of SUMO's outputs
    under any root), or None."""
    try:
        for k, (_, element) in enumerate(ET.iterparse(path, events=("start",))):
            tag = str(element.tag)
            if k == 0 and tag in SUMO_ONLY:
                return f"<{tag}>"
            if tag in SUMO_ELEMENTS:
                return f"<{tag}> elements"
            named = next((a for a in element.attrib if (tag, a) in SUMO_SIGNATURES), None)
            if named is not None:
                return f"<{tag} {named}=...> elements"
            if k >= _SHAPE_ELEMENTS:
                break
    except (ET.ParseError, OSError, UnicodeDecodeError):
        return None
    return None


def normalise(data: bytes) -> bytes:
    """The bytes SUMO reproduces: generation times, TraCI's port and wall-clock figures
    blanked."""
    data = _PORT.sub(rb"\1(port)\2", _WHEN.sub(rb"\1(time)\2", data))
    return _PERFORMANCE.sub(lambda m: _WALL.sub(rb'\1=""', m.group(0)), data)


@dataclass(frozen=True)
class Agreement:
    same: bool
    how: str  # "identical", "identical but for SUMO's times", "within tolerance", or why not


def agree(delivered: bytes, reproduced: bytes, *, sumo: bool) -> Agreement:
    """Whether a delivered file and its reproduction agree (see the module's rules)."""
    if delivered == reproduced:
        return Agreement(True, "identical")
    if not sumo:
        return Agreement(False, f"differs ({_first_difference(delivered, reproduced)})")
    a, b = normalise(delivered), normalise(reproduced)
    if a == b:
        return Agreement(True, "identical but for SUMO's times")
    problem = _beyond_tolerance(a, b)
    if problem is None:
        return Agreement(True, f"within tolerance ({TOLERANCE})")
    return Agreement(False, problem)


def _beyond_tolerance(a: bytes, b: bytes) -> str | None:
    texts_a, texts_b = _NUMBER.split(a), _NUMBER.split(b)
    if texts_a != texts_b:
        return f"differs ({_first_difference(a, b)})"
    for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b), strict=True):
        decimals = len(x.partition(b".")[2])
        if decimals != len(y.partition(b".")[2]):
            return f"differs: {x.decode()} against {y.decode()}"
        if abs(float(x) - float(y)) > 1.000001 * 10.0**-decimals:
            return f"differs beyond {TOLERANCE}: {x.decode()} against {y.decode()}"
    return None


def _first_difference(a: bytes, b: bytes) -> str:
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    line = a[:at].count(b"\n") + 1
    return f"{len(a)} against {len(b)} bytes, first at line {line}"


def png_problem(data: bytes) -> str | None:
    """Why `data` is not a complete, non-blank PNG image, or None when it is one."""
    if not data.startswith(_PNG):
        return "no PNG signature"
    at, chunks = len(_PNG), []
    while at < len(data):
        if at + 8 > len(data):
            return f"a truncated chunk at byte {at}"
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        end = at + 12 + length
        if end > len(data):
            return f"chunk {kind!r} runs past the end of the file"
        body = data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : end])
        if zlib.crc32(kind + body) != crc:
            return f"chunk {kind!r} at byte {at} fails its CRC"
        chunks.append((kind, body))
        at = end
        if kind == b"IEND":
            break
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        return "not an image: it needs IHDR first and IEND last"
    if at != len(data):
        return f"{len(data) - at} bytes after the image's end (IEND)"
    return _pixels_problem(data)


def _pixels_problem(data: bytes) -> str | None:
    from matplotlib import image

    try:
        pixels = np.asarray(image.imread(io.BytesIO(data), format="png"))
    except (OSError, ValueError, SyntaxError) as exc:
        return f"its pixels do not decode: {exc}"
    colours = np.unique(pixels.reshape(-1, pixels.shape[-1] if pixels.ndim == 3 else 1), axis=0)
    if len(colours) < 3:
        return f"a blank image: {len(colours)} colour(s) in {pixels.shape[1]} x {pixels.shape[0]}"
    return None
