"""Figures in a report's prose are claims too.

Every number in a report's summary and limitations must be either the value of one of its
machine-readable claims (which the checker recomputes from the artifacts), rounded to the
decimals the prose writes, or a number the task itself gives (its text, inputs or output
names). A report that states a figure nothing backs is refused: the prose may not say what
the claims do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from simulacra.lab.claims import disagreement
from simulacra.lab.episode import Report

# A number standing alone: not part of a name (A0B1, cycle60, T1) or of a longer figure.
_FIGURE = re.compile(
    r"(?<![\w./])(?P<sign>[-+]?)(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    r"(?![\w/]|\.\d|,\d{3})(?P<percent>%?)"
)


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    decimals: int
    percent: bool


def figures(text: str) -> list[Figure]:
    """The numbers a text states, in order."""
    found = []
    for m in _FIGURE.finditer(text):
        digits = m["digits"].replace(",", "")
        decimals = m["decimals"] or ""
        value = float(f"{m['sign']}{digits}.{decimals}" if decimals else f"{m['sign']}{digits}")
        found.append(Figure(m.group(0), value, len(decimals), bool(m["percent"])))
    return found


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
