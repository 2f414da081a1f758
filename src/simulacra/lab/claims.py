"""Machine-readable claims: a value, the artifact it comes from, and how it is computed.

The checker recomputes every claim of a report from its artifact; a claim that disagrees, or
that names an artifact outside the attempt, is a finding.
"""

from __future__ import annotations

import csv
import json
import math
import xml.etree.ElementTree as ET
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

ClaimName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
RELATIVE_TOLERANCE = 0.01
ABSOLUTE_TOLERANCE = 1e-6


class Measure(StrEnum):
    """How a claim's value is computed from its artifact."""

    xml_count = "xml_count"  # elements named `element`
    xml_mean = "xml_mean"  # mean of `attribute` over elements named `element`
    xml_sum = "xml_sum"
    xml_max = "xml_max"
    xml_min = "xml_min"
    xml_attribute = "xml_attribute"  # `attribute` of the first `element`
    json_value = "json_value"  # the number at the dotted `key`
    csv_mean = "csv_mean"  # mean of column `key`
    csv_count = "csv_count"  # data rows


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: ClaimName
    value: float
    artifact: str = Field(description="path of the file, relative to the attempt folder")
    measure: Measure
    element: str | None = None
    attribute: str | None = None
    key: str | None = None


class ClaimError(ValueError):
    """A claim that cannot be computed from its artifact."""


def compute(claim: Claim, root: Path) -> float:
    """The claim's value recomputed from its artifact inside `root`."""
    path = (root / claim.artifact).resolve()
    if root.resolve() not in path.parents:
        raise ClaimError(f"artifact {claim.artifact!r} lies outside the attempt folder")
    if not path.is_file():
        raise ClaimError(f"artifact {claim.artifact} does not exist")
    measure = claim.measure
    try:
        if measure.startswith("xml"):
            return _xml(claim, path)
        if measure is Measure.json_value:
            return _json(claim, path)
        return _csv(claim, path)
    except (ET.ParseError, json.JSONDecodeError, csv.Error, UnicodeDecodeError) as exc:
        raise ClaimError(f"artifact {claim.artifact} cannot be read: {exc}") from exc


def disagreement(claim: Claim, root: Path) -> str | None:
    """Why the claim does not match its artifact, or None when it does."""
    try:
        actual = compute(claim, root)
    except ClaimError as exc:
        return f"claim {claim.name}: {exc}"
    if math.isclose(claim.value, actual, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE):
        return None
    return (
        f"claim {claim.name} = {claim.value:g}, but {claim.measure.value} of {claim.artifact} "
        f"gives {actual:g}"
    )


def _xml(claim: Claim, path: Path) -> float:
    if not claim.element:
        raise ClaimError(f"claim {claim.name}: {claim.measure.value} needs `element`")
    elements = list(ET.parse(path).getroot().iter(claim.element))
    if claim.measure is Measure.xml_count:
        return float(len(elements))
    if not claim.attribute:
        raise ClaimError(f"claim {claim.name}: {claim.measure.value} needs `attribute`")
    values = [float(v) for e in elements if (v := e.get(claim.attribute)) is not None]
    if not values:
        raise ClaimError(f"no <{claim.element}> in {claim.artifact} has {claim.attribute}")
    match claim.measure:
        case Measure.xml_mean:
            return sum(values) / len(values)
        case Measure.xml_sum:
            return sum(values)
        case Measure.xml_max:
            return max(values)
        case Measure.xml_min:
            return min(values)
        case _:
            return values[0]


def _json(claim: Claim, path: Path) -> float:
    if not claim.key:
        raise ClaimError(f"claim {claim.name}: json_value needs `key`")
    value: object = json.loads(path.read_text(encoding="utf-8"))
    for part in claim.key.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise ClaimError(f"{claim.artifact} has no key {claim.key}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ClaimError(f"{claim.artifact}: {claim.key} is not a number")
    return float(value)


def _csv(claim: Claim, path: Path) -> float:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if claim.measure is Measure.csv_count:
        return float(len(rows))
    if not claim.key or (rows and claim.key not in rows[0]):
        raise ClaimError(f"{claim.artifact} has no column {claim.key}")
    if not rows:
        raise ClaimError(f"{claim.artifact} has no rows")
    return sum(float(r[claim.key]) for r in rows) / len(rows)
