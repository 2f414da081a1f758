"""Clock times of day: 24-hour "HH:MM" strings outside, minutes since midnight inside."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator

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


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|min|s)\b")
_UNIT_MINUTES = {"d": 1440.0, "h": 60.0, "m": 1.0, "min": 1.0, "s": 1 / 60}


def _moment(value: Any) -> Any:
    """A time of day or a date and time; YAML reads an unquoted 17:00 as 1020 (base 60)."""
    if isinstance(value, datetime | time):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24 * 60:
        return time(value // 60, value % 60)
    if isinstance(value, str):
        text = value.strip()
        for parse in (time.fromisoformat, datetime.fromisoformat):
            try:
                parsed = parse(text)
            except ValueError:
                continue
            return naive(parsed)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 24 * 60:
        shown = f"{value // 60}:{value % 60:02d}"  # what was written, before YAML's base 60
        raise ValueError(f"{shown} is no time of day; a day runs from 00:00 to 23:59")
    raise ValueError(
        f'expected a time like "17:00" or a date and time like 2024-02-14T17:00, got {value!r}'
    )


def naive(moment: Any) -> Any:
    """`moment` if it names no time zone: simulated time has none."""
    if isinstance(moment, datetime | time) and moment.tzinfo is not None:
        raise ValueError(f"{moment.isoformat()} names a time zone; simulated time has none")
    return moment


def _duration(value: Any) -> Any:
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return timedelta(minutes=value)
    if isinstance(value, str) and value.strip().upper().startswith("P"):
        return value.strip()  # ISO 8601 ("PT14H"), as a resolved config writes it
    if isinstance(value, str):
        text = value.strip().lower()
        parts = _DURATION_PART.findall(text)
        if parts and _DURATION_PART.sub("", text).strip() == "":
            return timedelta(minutes=sum(float(n) * _UNIT_MINUTES[u] for n, u in parts))
    raise ValueError(f'expected a duration like "10m", "14h", "1d" or "1d 2h", got {value!r}')


# A scenario's times: "17:00" (a time of day) or a date and time; durations "14h", "90m".
Moment = Annotated[datetime | time, BeforeValidator(_moment)]
Duration = Annotated[timedelta, BeforeValidator(_duration)]


def on_day(moment: datetime | time, day: date) -> datetime:
    """A time of day means that time on `day`; a date and time stays as it is."""
    return moment if isinstance(moment, datetime) else datetime.combine(day, moment)
