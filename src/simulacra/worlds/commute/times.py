"""Simulated clock times: 24-hour "HH:MM" strings outside, minutes since midnight inside."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
HHMM_PATTERN = _HHMM.pattern


class TimeFormatError(ValueError):
    """A clock time that is not a 24-hour "HH:MM" string."""


def parse_hhmm(text: str) -> float:
    """Minutes since midnight of a 24-hour "HH:MM" time ("07:30" -> 450.0)."""
    match = _HHMM.match(text.strip())
    if match is None:
        raise TimeFormatError(f'{text!r} is not a 24-hour time; expected "HH:MM" such as "07:30"')
    return float(int(match.group(1)) * 60 + int(match.group(2)))


def format_hhmm(minutes: float) -> str:
    """The 24-hour "HH:MM" of a time in minutes since midnight, rounded to the minute."""
    whole = round(minutes)
    return f"{whole // 60 % 24:02d}:{whole % 60:02d}"


@dataclass(frozen=True)
class DayWindow:
    """The part of each simulated day in which trips happen (the source: 06:00 to 12:00)."""

    start_min: float
    end_min: float

    @classmethod
    def of(cls, start: str, end: str) -> DayWindow:
        window = cls(parse_hhmm(start), parse_hhmm(end))
        if window.end_min <= window.start_min:
            raise ValueError(f"day window {start}-{end} is empty; the end must follow the start")
        return window

    def contains(self, minutes: float) -> bool:
        return self.start_min <= minutes < self.end_min

    def check(self, text: str) -> float:
        """Minutes of `text`, or a ValueError that names the window."""
        minutes = parse_hhmm(text)
        if not self.contains(minutes):
            raise ValueError(f"{text} is outside the day's window {self}; pick a time inside it")
        return minutes

    def __str__(self) -> str:
        return f"{format_hhmm(self.start_min)}-{format_hhmm(self.end_min)}"
