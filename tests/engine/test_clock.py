from datetime import datetime, time, timedelta
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.engine import Calendar, Clock

START = datetime(2024, 2, 14, 7, 0)


def test_a_day_of_ten_minute_ticks_from_seven_to_nine_has_84_ticks() -> None:
    calendar = Calendar(START, START + timedelta(hours=14))
    times = calendar.times()
    assert len(times) == 84
    assert times[0] == START and times[-1] == datetime(2024, 2, 14, 20, 50)


def test_the_clock_marks_the_first_and_last_tick_of_each_day() -> None:
    clock = Clock(Calendar(START, START + timedelta(days=2), timedelta(hours=6)))
    starts, ends = [], []
    while not clock.done:
        if clock.starts_day:
            starts.append(clock.now)
        if clock.ends_day:
            ends.append(clock.now)
        clock.advance()
    assert starts == [START, datetime(2024, 2, 15, 1), datetime(2024, 2, 16, 1)]
    assert ends == [datetime(2024, 2, 14, 19), datetime(2024, 2, 15, 19), datetime(2024, 2, 16, 1)]


def test_waking_hours_skip_the_night() -> None:
    calendar = Calendar(START, START + timedelta(days=2), timedelta(hours=1), time(7), time(21))
    times = calendar.times()
    assert len(times) == 28
    assert datetime(2024, 2, 14, 20) in times and datetime(2024, 2, 14, 21) not in times
    clock = Clock(calendar, index=13)
    assert clock.now == datetime(2024, 2, 14, 20) and clock.next == datetime(2024, 2, 15, 7)


def test_a_calendar_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(ValueError, match="ends"):
        Calendar(START, START - timedelta(hours=1))
    with pytest.raises(ValueError, match="tick must be positive"):
        Calendar(START, START + timedelta(hours=1), timedelta(0))


@given(
    minutes=st.integers(min_value=1, max_value=180),
    hours=st.integers(min_value=1, max_value=72),
)
def test_ticks_are_evenly_spaced_and_inside_the_schedule(minutes: int, hours: int) -> None:
    calendar = Calendar(START, START + timedelta(hours=hours), timedelta(minutes=minutes))
    times = calendar.times()
    assert times[0] == START and times[-1] < calendar.end
    assert all(b - a == calendar.tick for a, b in pairwise(times))
    assert len(times) == -(-hours * 60 // minutes)
