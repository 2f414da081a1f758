"""Figures in a report's prose are claims too.

Every number in a report's summary and limitations must be either the value of one of its
machine-readable claims (which the checker recomputes from the artifacts), rounded to the
decimals the prose writes, or a number the task itself gives (its text, inputs or output
names). A report that states a figure nothing backs is refused: the prose may not say what
the claims do not. A figure is a figure however it is written: with a unit attached ("187s",
"2x", "7pm", "12km/h"), in scientific notation ("3e2"), as a percentage ("25%", "25
percent") or in words ("forty-two", "three hundred", "twice", "a dozen"). A lone "one" is
read as a word, not a figure ("one of the outputs"); "twenty-one" and "one hundred" are
figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from simulacra.lab.claims import disagreement
from simulacra.lab.episode import Report

# A number not part of a name (A0B1, cycle60, T1) or of a longer figure; a unit may follow it,
# attached or not.
_FIGURE = re.compile(
    r"(?<![\w./])(?P<sign>[-+]?)(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    r"(?:[eE](?P<exponent>[-+]?\d+))?"
    r"(?P<unit>[^\W\d_]{1,12}(?:/[^\W\d_]{1,6})?)?"
    r"(?![\w/]|\.\d|,\d{3})(?P<percent>%|\s?(?:percent|per cent)\b)?",
    re.I,
)
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "twice": 2, "thrice": 3, "dozen": 12,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "|".join(sorted([*_UNITS, *_SCALES], key=len, reverse=True))
_WORDS = re.compile(
    rf"\b(?:{_WORD})(?:(?:[\s-]+(?:and[\s-]+)?|\s+a\s+)(?:{_WORD}))*\b"
    r"(?P<percent>\s?(?:percent|per cent)\b)?",
    re.I,
)


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    decimals: int
    percent: bool


def figures(text: str) -> list[Figure]:
    """The numbers a text states, in order, in digits or in words."""
    found = []
    for m in _FIGURE.finditer(text):
        digits = m["digits"].replace(",", "")
        decimals = m["decimals"] or ""
        value = float(f"{m['sign']}{digits}.{decimals}" if decimals else f"{m['sign']}{digits}")
        places = len(decimals)
        if m["exponent"]:  # 3e2 is 300, 1.25e-1 is 0.125
            value *= 10.0 ** int(m["exponent"])
            places = max(0, places - int(m["exponent"]))
        found.append((m.start(), Figure(m.group(0), value, places, bool(m["percent"]))))
    for m in _WORDS.finditer(text):
        words = re.findall(_WORD, m.group(0).lower())
        if words != ["one"]:
            found.append((m.start(), Figure(m.group(0), _spelled(words), 0, bool(m["percent"]))))
    return [f for _, f in sorted(found, key=lambda pair: pair[0])]


def _spelled(words: list[str]) -> float:
    """The value of a number in words: "three hundred and forty-two" is 342."""
    total, current = 0, 0
    for word in words:
        if word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] > 100:
                total, current = total + current, 0
        elif word == "dozen":
            current = max(current, 1) * 12
        else:
            current += _UNITS[word]
    return float(total + current)


def backs(figure: Figure, value: float) -> bool:
    """Whether a claimed or given `value` is what `figure` states, as the prose rounds it."""
    candidates = [value, 100 * value] if figure.percent else [value]
    return any(round(c, figure.decimals) == figure.value for c in candidates)


def unbacked(prose: str, claimed: Iterable[float], given: Sequence[str]) -> list[str]:
    """The figures in `prose` that no claimed value and no number of the task backs."""
    values = list(claimed)
    values += [f.value for text in given for f in figures(text)]
    return [f.text for f in figures(prose) if not any(backs(f, v) for v in values)]


def report_problems(report: Report, root: Path, given: Sequence[str]) -> list[tuple[str, str]]:
    """(check, message) for each claim that its artifact under `root` does not give, and for
    prose that states a figure no claim backs."""
    found = [
        ("claims match artifacts", problem)
        for claim in report.claims
        if (problem := disagreement(claim, root))
    ]
    values = [c.value for c in report.claims if isinstance(c.value, float)]
    stray = unbacked(f"{report.summary}\n{report.limitations}", values, given)
    if stray:
        found.append(
            (
                "the report's figures are claims",
                f"the report states {', '.join(stray[:5])} in its text, which no claim backs; "
                "state every figure as a claim",
            )
        )
    return found
