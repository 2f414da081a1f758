"""Figures in a report's text must be claims, or the task's own numbers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulacra.lab.prose import figures, unbacked


def test_figures_stand_alone_numbers_not_names() -> None:
    text = "Lane A0B1_0 of tripinfo-cycle60.xml in T1: 1,200 vehicles, 79.36 s, 25%; 1-6 s."
    assert [f.text for f in figures(text)] == ["1,200", "79.36", "25%", "1", "6"]
    assert figures("1,200")[0].value == 1200 and figures("-3.5")[0].value == -3.5


def test_a_figure_is_backed_by_a_claim_as_the_prose_rounds_it() -> None:
    claims = [300.0, 79.357, 0.25]
    prose = "300 trips finished in 79.4 s on average (79.36 s exactly); 25% were late."
    assert unbacked(prose, claims, []) == []
    assert unbacked("302 trips finished.", claims, []) == ["302"]
    assert unbacked("79.3 s on average.", claims, []) == ["79.3"]


def test_the_task_s_own_numbers_may_be_repeated() -> None:
    given_texts = ["Simulate a 3 x 3 grid until 1500 s with cycles 60, 90 and 120 s.", "60,90,120"]
    assert unbacked("The 3 x 3 grid ran until 1500 s; cycle 90 was best.", [], given_texts) == []
    assert unbacked("It took 12 minutes.", [], given_texts) == ["12"]


def test_prose_without_figures_needs_no_claim() -> None:
    assert unbacked("Ran the skills' commands; every required output was produced.", [], []) == []


@given(
    value=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    decimals=st.integers(min_value=0, max_value=3),
)
def test_a_claim_stated_at_any_rounding_is_backed_and_one_unit_off_is_not(
    value: float, decimals: int
) -> None:
    shown = f"{round(value, decimals):.{decimals}f}"
    assert unbacked(f"The figure was {shown} s.", [value], []) == []
    step = 10.0**-decimals
    off = f"{round(value, decimals) + step:.{decimals}f}"
    assert unbacked(f"The figure was {off} s.", [value], []) == [off.lstrip("+")]


def test_units_attached_scientific_notation_and_words_are_figures() -> None:
    text = "187s, 2x, 7pm, 12km/h, 3e2, forty-two, three hundred and five, twice, 25 percent"
    assert [f.value for f in figures(text)] == [187, 2, 7, 12, 300, 42, 305, 2, 25]
    assert figures("one of the outputs; cycle60 and A0B1") == []
    assert unbacked("It ran 3e2 trips in 187s.", [300.0, 187.0], []) == []
