"""The interviews' awareness test: the host is aware from her thought on; anyone else only
when the answer states the fact and so does something it saw or heard that the answer rests
on (the source checked its answers against the memory stream)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from simulacra.experiments.facts import aware_test
from simulacra.experiments.load import load_scenario
from simulacra.experiments.scenario import Scenario

TOWN = Path(__file__).parents[2] / "scenarios" / "town.yaml"
NAMES = {"marta_okafor": "Marta Okafor", "theo_park": "Theo Park"}
HEARD = "Conversation with Marta Okafor: I'm hosting a Valentine's party at Hobbs Cafe at 17:00!"
ANSWER = "Marta's Valentine's party at Hobbs Cafe at 17:00."


def _test() -> tuple[Scenario, Callable[[str, str, datetime, Sequence[str]], bool]]:
    scenario = load_scenario(TOWN)
    assert scenario.interviews is not None
    return scenario, aware_test(scenario, scenario.interviews.aware_when, NAMES)


def test_the_host_is_aware_from_her_thought_whatever_she_answers() -> None:
    scenario, aware = _test()
    thought = scenario.when(scenario.interventions[0].at)
    assert aware("marta_okafor", "yes", thought + timedelta(hours=1), ())
    assert not aware("marta_okafor", "yes", thought - timedelta(minutes=10), ())


def test_another_is_aware_when_the_answer_and_what_it_heard_both_state_the_fact() -> None:
    scenario, aware = _test()
    later = scenario.when(scenario.interviews.times[2])  # type: ignore[union-attr]
    assert aware("theo_park", ANSWER, later, ("Theo saw rain.", HEARD))
    assert not aware("theo_park", ANSWER, later, ())  # the words alone: guessed or invented
    assert not aware("theo_park", ANSWER, later, ("Theo saw rain.",))
    assert not aware("theo_park", "yes", later, (HEARD,))  # heard, but the answer says nothing
