"""Derived files must agree with the SUMO outputs they summarise.

A script can write any number into a metrics.json, and a replay reruns the same script; so a
figure in a derived file (a JSON, YAML or CSV the attempt delivers, or a `name: value` line of
its text and Markdown files) that names a quantity SUMO writes is related to the delivered
SUMO outputs that give it; files the task gave are data, not derived. The name relates: a key or a
column is split into words (`mean_duration_s`, `meanDuration`, `avg-travel-time`), units
dropped (`s`, `m`, `km`, ...), an aggregate read (`mean`, `avg`, `total`, `max`, `min`,
`median`, `count`), and the rest matched against the attributes of SUMO's outputs, read the
same way (`waitingTime`, `timeLoss`, `routeLength`, `meanTravelTime`), with a few synonyms
(travel time is a trip's duration; delay is time lost).

- A figure that summarises a whole output (reached through related keys, list positions and
  numbers only: `{"mean_duration_s": 79.357}`, `{"mean_waiting_s": {"45": 12.3}}`) must be
  that aggregate of the attribute over the elements of some delivered SUMO output, one of its
  values (where no aggregate is named), a number of a SUMO configuration, or a number of the
  task; rounded as the file writes it, or within 0.05%.
- A figure under a grouping key (`{"mean_duration_s": {"truck": 91.2}}`, or a text cell of
  a CSV row: `truck,91.2`) summarises the part of an output that the key names: the elements
  with an attribute of that value (`vType="truck"`, an edge's `id`), or a whole output whose
  file the key names (`static` for tripinfo-static.xml). It must be that aggregate over that
  part. A key that names nothing in the delivered SUMO outputs is refused: the figure is
  about a group the data does not hold.
- A figure whose name relates to no attribute is not judged here (its claims are).

A figure that names a quantity no delivered SUMO output gives is refused: derived from
nothing the attempt can show.
"""

from __future__ import annotations

import csv
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simulacra.lab.artifacts import sumo_header
from simulacra.lab.claims import AGGREGATE_ABSOLUTE, AGGREGATE_RELATIVE, number

_AGGREGATES = {
    "mean": "mean", "avg": "mean", "average": "mean", "total": "sum", "sum": "sum",
    "max": "max", "maximum": "max", "peak": "max", "min": "min", "minimum": "min",
    "median": "median", "count": "count", "number": "count", "num": "count", "n": "count",
}  # fmt: skip
_UNITS = frozenset(
    {"s", "sec", "secs", "second", "seconds", "m", "km", "h", "kmh", "ms", "mps", "per",
     "pct", "percent", "veh", "vehs", "g", "kg", "mg", "l", "ml", "of", "in"}
)  # fmt: skip
_FILLERS = frozenset({"trip", "vehicle", "per", "the", "of", "value", "time"})
_SYNONYMS = {
    "traveltime": "duration", "triptime": "duration", "travel": "duration",
    "travelduration": "duration", "delay": "timeloss", "lost": "timeloss", "loss": "timeloss",
    "timelost": "timeloss", "distance": "routelength", "waiting": "waitingtime",
    "wait": "waitingtime", "waittime": "waitingtime", "length": "routelength",
}  # fmt: skip
_WRAPPERS = frozenset(
    {"metrics", "results", "result", "summary", "stats", "statistics", "overall", "all",
     "totals", "values", "data", "output", "outputs"}
)  # fmt: skip
_LINE = re.compile(
    r"^[\s*#>-]*(?P<name>[A-Za-z][\w .()/-]{0,60}?)\s*[:=]\s*\**(?P<value>-?\d+(?:\.\d+)?)\b",
    re.M,
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def words(name: str) -> list[str]:
    """`meanTravelTime`, `mean_travel_time_s` and `mean-travel-time` alike, in lower case."""
    return [w.lower() for w in _WORDS.findall(name)]


def quantity(name: str) -> tuple[str, str | None]:
    """The quantity a name states and the aggregate it names: `mean_duration_s` is
    ("duration", "mean"); `meanTravelTime` is ("traveltime", "mean")."""
    parts = words(name)
    aggregate = next((_AGGREGATES[w] for w in parts if w in _AGGREGATES), None)
    rest = [w for w in parts if w not in _AGGREGATES and w not in _UNITS]
    return "".join(rest), aggregate


def _names(what: str, name: str) -> set[str]:
    """The quantities a name may mean: as read, through a synonym, and without the filler
    words (`mean_trip_duration_s` is a duration; `avg_vehicle_speed` a speed)."""
    parts = [w for w in words(name) if w not in _AGGREGATES and w not in _UNITS]
    bare = "".join(w for w in parts if w not in _FILLERS)
    found = {what, bare}
    return {n for n in found if n} | {_SYNONYMS[n] for n in found if n in _SYNONYMS}


@dataclass
class Series:
    """The values of one attribute over one output's elements of one tag (or a part of them:
    those whose `condition` a grouping key named)."""

    attribute: str
    tag: str
    path: str
    values: list[float] = field(default_factory=list)
    elements: list[dict[str, str]] = field(default_factory=list)  # each value's attributes
    condition: str = ""

    @property
    def where(self) -> str:
        """`duration of <tripinfo vType="truck"> in outputs/tripinfo.xml`"""
        return f"{self.attribute} of <{self.tag}{self.condition}> in {self.path}"

    def parts(self, groups: Sequence[str]) -> list[Series]:
        """The values under grouping keys: for each attribute that holds a key's value (case
        aside) on some elements, those elements' values; all of them where the key's words
        name the output's file; none where a key names neither."""
        found = [self]
        for key in groups:
            if set(words(key)) and set(words(key)) <= set(words(self.path)):
                continue
            found = [p for s in found for p in s._holding(key.strip())]
        return found

    def _holding(self, key: str) -> list[Series]:
        wanted = key.casefold()
        by_attribute: dict[str, list[int]] = {}
        for i, element in enumerate(self.elements):
            for attribute, text in element.items():
                if text.casefold() == wanted:
                    by_attribute.setdefault(attribute, []).append(i)
        return [
            Series(
                self.attribute,
                self.tag,
                self.path,
                [self.values[i] for i in keep],
                [self.elements[i] for i in keep],
                f"{self.condition} {attribute}={key!r}",
            )
            for attribute, keep in by_attribute.items()
        ]

    def aggregates(self) -> dict[str, float]:
        values = sorted(self.values)
        n = len(values)
        middle = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
        return {
            "mean": math.fsum(values) / n,
            "sum": math.fsum(values),
            "max": values[-1],
            "min": values[0],
            "median": middle,
            "count": float(n),
        }


@dataclass
class Catalogue:
    """What the delivered SUMO outputs give: quantity -> series, and their settings' numbers."""

    series: dict[str, list[Series]] = field(default_factory=dict)
    settings: set[float] = field(default_factory=set)

    def related(self, name: str) -> tuple[list[Series], str | None] | None:
        """The series a name relates to and its aggregate; None when it relates to none."""
        what, aggregate = quantity(name)
        if not what:
            return None
        names = _names(what, name)
        found = [s for n in names for s in self.series.get(n, [])]
        return (found, aggregate) if found or names & _KNOWN else None


# Quantities SUMO's outputs give, so that a figure about one is judged even where no
# delivered output gives it (then it is derived from nothing).
_KNOWN = frozenset(
    {"duration", "waitingtime", "timeloss", "routelength", "departdelay", "traveltime",
     "speed", "occupancy", "density", "entered", "left", "halting", "arrived", "inserted",
     "teleports", "co2abs", "fuelabs", "noxabs", "flow", "nvehcontrib"}
)  # fmt: skip


def catalogue(root: Path, paths: Sequence[str]) -> Catalogue:
    """The series of every delivered file that a SUMO tool wrote (its header says so)."""
    found = Catalogue()
    for path in paths:
        file = root / path
        header = sumo_header(file)
        if header is None or not path.endswith(".xml"):
            continue
        found.settings |= {v for t in re.findall(r'value="([^"]*)"', header.config)
                           if (v := number(t)) is not None}  # fmt: skip
        groups: dict[tuple[str, str], Series] = {}
        try:
            for element in ET.parse(file).getroot().iter():
                for attribute, text in element.attrib.items():
                    value = number(text)
                    if value is None:
                        continue
                    key = (str(element.tag), attribute)
                    if key not in groups:
                        groups[key] = Series(attribute, str(element.tag), path)
                    groups[key].values.append(value)
                    groups[key].elements.append(element.attrib)
        except (ET.ParseError, OSError):
            continue
        for (_, attribute), series in groups.items():
            what, _ = quantity(attribute)
            found.series.setdefault(what, []).append(series)
    return found


def derived_problems(
    root: Path, paths: Sequence[str], given: Sequence[str], *, sources: Sequence[str] = ()
) -> list[str]:
    """Why the figures of the derived files among `paths` disagree with the SUMO outputs
    among `sources` (default: `paths`) that they name."""
    sumo = catalogue(root, sources or paths)
    extra = {v for text in given for t in re.findall(r"-?\d+(?:\.\d+)?", text)
             if (v := number(t)) is not None} | sumo.settings  # fmt: skip
    problems = []
    for path in paths:
        file = root / path
        if path.endswith(".json"):
            figures = _parsed_figures(file, json.loads)
        elif path.endswith((".yaml", ".yml")):
            figures = _parsed_figures(file, yaml.safe_load)
        elif path.endswith(".csv"):
            figures = _csv_figures(file)
        elif path.endswith((".txt", ".md")):
            figures = _text_figures(file)
        else:
            continue
        for keys, value, written in figures:
            named = [(k, r) for k in keys if (r := sumo.related(k)) is not None]
            if not named:
                continue
            name, (series, aggregate) = named[-1]
            # Any other name on the way is a group (a vehicle type, an edge, a scenario),
            # unless it is a number (a cycle of the task's), a wrapper, or an aggregate alone
            # (`{"duration": {"mean": 80}}`).
            rest = [k for k in keys if k != name and k.lower() not in _WRAPPERS]
            groups = [k for k in rest if number(k) is None and quantity(k)[0]]
            aggregate = aggregate or next((a for k in rest if (a := quantity(k)[1])), None)
            problem = _judge(name, value, written, groups, (series, aggregate), extra)
            if problem is not None:
                problems.append(f"{path}: {problem}")
                if len(problems) >= 5:
                    return problems
    return problems


def _judge(
    name: str,
    value: float,
    written: str,
    groups: Sequence[str],
    related: tuple[list[Series], str | None],
    extra: set[float],
) -> str | None:
    series, aggregate = related
    if not series:
        return f"{name} = {written}, but no delivered SUMO output gives {quantity(name)[0]}"
    parts = [p for s in series for p in s.parts(groups)]
    under = f" for {', '.join(groups)}" if groups else ""
    if not parts:
        return (
            f"{name} = {written}{under}, but no delivered SUMO output that gives "
            f"{quantity(name)[0]} holds {', '.join(groups)}"
        )
    if any(_close(value, written, v) for v in extra):
        return None
    for part in parts:
        whole = part.aggregates()
        candidates = [whole[aggregate]] if aggregate else [*whole.values(), *part.values]
        if any(_close(value, written, c) for c in candidates):
            return None
    named = f"the {aggregate} " if aggregate else ""
    biggest = sorted(parts, key=lambda s: -len(s.values))[:2]  # the elements, not a total
    shown = "; ".join(
        f"{named}{s.where} is {s.aggregates()[aggregate or 'mean']:g}" for s in biggest
    )
    return f"{name} = {written}, which no delivered SUMO output gives{under} ({shown})"


def _close(value: float, written: str, actual: float) -> bool:
    decimals = len(written.partition(".")[2]) if "e" not in written.lower() else 0
    allowed = max(AGGREGATE_ABSOLUTE, AGGREGATE_RELATIVE * abs(actual), 0.5 * 10.0**-decimals)
    return abs(value - actual) <= allowed * (1 + 1e-9)


def _parsed_figures(
    file: Path, load: Callable[[str], Any]
) -> Iterator[tuple[list[str], float, str]]:
    """(the keys leading to it, value, as written) for each number of a JSON or YAML file;
    nothing from a file that does not parse."""
    try:
        data = load(file.read_text(encoding="utf-8"))
    # json's JSONDecodeError is a ValueError.
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
        return
    yield from _walk(data, [])


def _text_figures(file: Path) -> Iterator[tuple[list[str], float, str]]:
    """`name: value` and `name = value` lines of a text file (a units word may follow)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    for m in _LINE.finditer(text):
        value = number(m["value"])
        if value is not None:
            yield [m["name"].strip()], value, m["value"]


def _walk(data: object, keys: list[str]) -> Iterator[tuple[list[str], float, str]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _walk(value, [*keys, str(key)])
    elif isinstance(data, list):
        for value in data:
            yield from _walk(value, keys)
    elif isinstance(data, int | float) and not isinstance(data, bool) and math.isfinite(data):
        yield keys, float(data), json.dumps(data)


def _csv_figures(file: Path) -> Iterator[tuple[list[str], float, str]]:
    try:
        with file.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error):
        return
    for row in rows:
        # A row's text cells (a vehicle type, an edge id) are the group its figures are of.
        cells = [(c, (t or "").strip()) for c, t in row.items() if c and isinstance(t, str)]
        groups = [t for _, t in cells if t and number(t) is None]
        for column, text in cells:
            value = number(text)
            if value is not None:
                yield [*groups, column], value, text
