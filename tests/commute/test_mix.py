"""A smaller commute is one setting: agents.count scales the scenario's mix by its shares
(largest remainder), and a missing mix is an error that shows the form it takes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import ScenarioError, load_scenario
from simulacra.experiments.kinds.commute.mix import scale_mix

COMMUTE = Path(__file__).resolve().parents[2] / "scenarios" / "commute.yaml"
runner = CliRunner()

mixes = st.dictionaries(
    st.sampled_from(["student", "administrative_worker", "elderly_resident", "factory_worker"]),
    st.integers(0, 400),
    min_size=1,
).filter(lambda mix: sum(mix.values()) > 0)


@given(mixes, st.integers(1, 1000))
def test_a_scaled_mix_has_count_agents_each_profile_within_one_of_its_exact_share(
    mix: dict[str, int], count: int
) -> None:
    scaled = scale_mix(mix, count)
    assert sum(scaled.values()) == count
    total = sum(mix.values())
    for name, weight in mix.items():
        assert abs(scaled.get(name, 0) - count * weight / total) < 1
    assert list(scaled) == [name for name in mix if name in scaled]  # the mix's order
    assert all(scaled.values())  # a profile left with none is dropped


@given(mixes)
def test_a_mix_scaled_to_its_own_total_is_itself(mix: dict[str, int]) -> None:
    assert scale_mix(mix, sum(mix.values())) == {name: n for name, n in mix.items() if n}


def test_the_largest_remainders_get_the_agents_left_over() -> None:
    # 7 of 5:2:1 is 4.375, 1.75, 0.875: whole parts 4, 1, 0; the two left over go to 0.875
    # and 0.75, not to 0.375.
    assert scale_mix({"student": 5, "factory_worker": 2, "elderly_resident": 1}, 7) == {
        "student": 4,
        "factory_worker": 2,
        "elderly_resident": 1,
    }
    # Equal fractions: the profile named first gets the one left over.
    assert scale_mix({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1}


def test_count_alone_makes_the_shipped_commute_smaller_in_its_proportions() -> None:
    small = load_scenario(COMMUTE, ["agents.count=12"])
    assert small.agents.count == 12
    assert small.agents.mix == {
        "student": 3,
        "administrative_worker": 3,
        "elderly_resident": 3,
        "factory_worker": 3,
    }
    # What ran is what the run's config.yaml records: it loads again to the same mix.
    assert load_scenario(small.model_dump(mode="json")).agents.mix == small.agents.mix
    checked = runner.invoke(app, ["scenario", "check", str(COMMUTE), "--set", "agents.count=12"])
    assert checked.exit_code == 0, checked.output
    assert "12 agents" in checked.output


@pytest.mark.parametrize("extra", [[], ["agents.count=8"]])
def test_a_missing_mix_is_refused_with_the_form_it_takes(extra: list[str]) -> None:
    with pytest.raises(ScenarioError) as refused:
        load_scenario(COMMUTE, ["agents.mix=null", *extra])
    (line,) = refused.value.problems
    each = 2 if extra else 1
    form = ", ".join(
        f"{name}: {each}"
        for name in ("student", "administrative_worker", "elderly_resident", "factory_worker")
    )
    assert line.startswith("scenario.agents.mix: give how many agents of each profile, as {")
    assert "{" + form + "}" in line
