"""Machine-readable claims: a value, the artifact it comes from, and how it is computed.

The checker recomputes every claim from its artifact (from the reproduced copy when there is
one) and compares as the claim's type demands (`tolerance`):

- a count (`xml_count`, `csv_count`) or a sum of whole numbers: exactly;
- a text (an id, a name: any claim whose artifact value is not a number): exactly;
- a value read from the artifact (`xml_attribute`, `json_value`, `xml_max`, `xml_min`): as
  written, a whole number exactly and a decimal within half a unit of its last decimal;
- an aggregate (`xml_mean`, `csv_mean`, a sum of decimals): within 0.05% or 0.0005.

A claim that cannot be computed (a missing artifact, a column that is not numeric, a key that
is not there) is a finding, never a crash.
"""

from __future__ import annotations

import csv
import json
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

ClaimName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
AGGREGATE_RELATIVE = 5e-4
AGGREGATE_ABSOLUTE = 5e-4
_HOW = {
    "exact": "exactly",
    "as written": "as written, to its last decimal",
    "aggregate": "within 0.05% or 0.0005",
}


class Measure(StrEnum):
    """How a claim's value is computed from its artifact."""

    xml_count = "xml_count"  # elements named `element`
    xml_mean = "xml_mean"  # mean of `attribute` over elements named `element`
    xml_sum = "xml_sum"
    xml_max = "xml_max"
    xml_min = "xml_min"
    xml_attribute = "xml_attribute"  # `attribute` of the first `element`
    json_value = "json_value"  # the value at the dotted `key`
    csv_mean = "csv_mean"  # mean of column `key`
    csv_count = "csv_count"  # data rows


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: ClaimName
    value: float | str = Field(description="a number, or a text for an id or a name")
    artifact: str = Field(description="path of the file, relative to the attempt folder")
    measure: Measure
    element: str | None = None
    attribute: str | None = None
    key: str | None = None


class ClaimError(Exception):
    """A claim that cannot be computed from its artifact."""


@dataclass(frozen=True)
class Actual:
    """A claim's value as its artifact gives it, and how a claim must match it."""

    value: float | str
    tolerance: str  # "exact", "as written", "aggregate"
    decimals: int = 0  # of the written value, for "as written"


def compute(claim: Claim, root: Path) -> Actual:
    """The claim's value recomputed from its artifact inside `root`."""
    path = (root / claim.artifact).resolve()
    if root.resolve() not in path.parents:
        raise ClaimError(f"artifact {claim.artifact!r} lies outside the attempt folder")
    if not path.is_file():
        raise ClaimError(f"artifact {claim.artifact} does not exist")
    try:
        if claim.measure.startswith("xml"):
            return _xml(claim, path)
        if claim.measure is Measure.json_value:
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
    if matches(claim.value, actual):
        return None
    shown = f"{actual.value:g}" if isinstance(actual.value, float) else repr(actual.value)
    value = f"{claim.value:g}" if isinstance(claim.value, float) else repr(claim.value)
    return (
        f"claim {claim.name} = {value}, but {claim.measure.value} of {claim.artifact} gives "
        f"{shown} (compared {_HOW[actual.tolerance]})"
    )


def matches(value: float | str, actual: Actual) -> bool:
    if isinstance(actual.value, str) or isinstance(value, str):
        return _text(value) == _text(actual.value)
    if not math.isfinite(value):
        return False
    if actual.tolerance == "exact":
        return value == actual.value
    if actual.tolerance == "as written":
        return abs(value - actual.value) <= 0.5 * 10.0**-actual.decimals * (1 + 1e-9)
    allowed = max(AGGREGATE_ABSOLUTE, AGGREGATE_RELATIVE * abs(actual.value))
    return abs(value - actual.value) <= allowed


def _text(value: float | str) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return value.strip()


def number(text: str) -> float | None:
    """A finite number written as text, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _written(text: str) -> Actual:
    """A value as the artifact writes it: a number compared as written, else a text."""
    value = number(text)
    if value is None:
        return Actual(text, "exact")
    mantissa = text.strip().lower().partition("e")[0]
    if "." not in mantissa:
        return Actual(value, "exact")
    return Actual(value, "as written", len(mantissa.partition(".")[2]))


def _numbers(texts: list[str], where: str) -> list[float]:
    values = [number(t) for t in texts]
    bad = next((t for t, v in zip(texts, values, strict=True) if v is None), None)
    if bad is not None:
        raise ClaimError(f"{where} holds {bad!r}, which is not a number")
    return [v for v in values if v is not None]


def _xml(claim: Claim, path: Path) -> Actual:
    if not claim.element:
        raise ClaimError(f"{claim.measure.value} needs `element`")
    elements = list(ET.parse(path).getroot().iter(claim.element))
    if claim.measure is Measure.xml_count:
        return Actual(float(len(elements)), "exact")
    if not claim.attribute:
        raise ClaimError(f"{claim.measure.value} needs `attribute`")
    texts = [v for e in elements if (v := e.get(claim.attribute)) is not None]
    if not texts:
        raise ClaimError(f"no <{claim.element}> in {claim.artifact} has {claim.attribute}")
    if claim.measure is Measure.xml_attribute:
        return _written(texts[0])
    values = _numbers(texts, f"{claim.attribute} of <{claim.element}>")
    if claim.measure in (Measure.xml_max, Measure.xml_min):
        pick = max if claim.measure is Measure.xml_max else min
        return _written(texts[values.index(pick(values))])
    if claim.measure is Measure.xml_sum:
        whole = all("." not in t and "e" not in t.lower() for t in texts)
        return Actual(math.fsum(values), "exact" if whole else "aggregate")
    return Actual(math.fsum(values) / len(values), "aggregate")


def _json(claim: Claim, path: Path) -> Actual:
    if not claim.key:
        raise ClaimError("json_value needs `key`")
    value: object = json.loads(path.read_text(encoding="utf-8"))
    for part in claim.key.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise ClaimError(f"{claim.artifact} has no key {claim.key}")
    if isinstance(value, str):
        return Actual(value, "exact")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ClaimError(f"{claim.artifact}: {claim.key} is neither a number nor a text")
    return _written(json.dumps(value))


def _csv(claim: Claim, path: Path) -> Actual:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if claim.measure is Measure.csv_count:
        return Actual(float(len(rows)), "exact")
    if not claim.key or (rows and claim.key not in rows[0]):
        raise ClaimError(f"{claim.artifact} has no column {claim.key}")
    if not rows:
        raise ClaimError(f"{claim.artifact} has no rows")
    values = _numbers([r[claim.key] or "" for r in rows], f"column {claim.key}")
    return Actual(math.fsum(values) / len(values), "aggregate")
