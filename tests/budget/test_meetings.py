"""The estimate's meeting stratum, on plans worked out by hand."""

from __future__ import annotations

from datetime import datetime, timedelta

from simulacra.experiments.kinds.town.meetings import meeting_ticks, schedules
from simulacra.runlog import Event

DAY = datetime(2024, 2, 14)


def _plan(agent: str, level: str, *blocks: tuple[str, int, str], t: str = "07:00") -> Event:
    items = [
        {"start": f"{DAY:%Y-%m-%d}T{start}", "duration_min": minutes, "place": place}
        for start, minutes, place in blocks
    ]
    data = {"level": level, "items": items}
    return Event(seq=0, t=f"{DAY:%Y-%m-%d}T{t}", wall=0.0, kind="plan", agent=agent, data=data)


def _ticks(start: datetime, hours: int) -> list[datetime]:
    return [start + timedelta(minutes=10 * i) for i in range(6 * hours)]


def test_a_meeting_marks_the_hour_after_the_second_arrives_and_staying_is_no_new_one() -> None:
    plans = schedules(
        [
            _plan("ann", "day", ("07:00", 60, "home"), ("08:00", 240, "cafe")),
            _plan(
                "bob", "day", ("07:00", 90, "flat"), ("08:30", 90, "cafe"), ("10:00", 60, "cafe")
            ),
        ]
    )
    times = _ticks(DAY + timedelta(hours=7), 6)
    marked = [
        t.strftime("%H:%M") for t, m in zip(times, meeting_ticks(plans, times), strict=True) if m
    ]
    assert marked == ["08:30", "08:40", "08:50", "09:00", "09:10", "09:20"]


def test_a_replan_replaces_the_blocks_from_its_start_and_later_days_repeat_the_last() -> None:
    plans = schedules(
        [
            _plan("ann", "day", ("07:00", 600, "cafe")),
            _plan("bob", "day", ("07:00", 600, "park")),
            _plan("bob", "replan", ("12:00", 60, "cafe"), t="12:00"),
        ]
    )
    assert plans["bob"][0][1] == DAY + timedelta(hours=12)  # the morning block cut at the replan
    times = [*_ticks(DAY + timedelta(hours=7), 6), *_ticks(DAY + timedelta(days=1, hours=11), 2)]
    marked = [
        t.strftime("%d %H:%M") for t, m in zip(times, meeting_ticks(plans, times), strict=True) if m
    ]
    assert marked[0] == "14 12:00" and marked[6] == "15 12:00" and len(marked) == 12
