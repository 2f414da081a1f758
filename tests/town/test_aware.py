"""The interviews' awareness test: the host is aware from her thought on; anyone else only
when the answer states the fact and so does something it saw or heard that the answer rests
on (the source checked its answers against the memory stream)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from simulacra.core import InterviewAnswer
from simulacra.experiments.facts import AwareTest, aware_test
from simulacra.experiments.load import load_scenario
from simulacra.experiments.scenario import Scenario

TOWN = Path(__file__).parents[2] / "scenarios" / "town.yaml"
NAMES = {"marta_okafor": "Marta Okafor", "theo_park": "Theo Park"}
HEARD = "Conversation with Marta Okafor: I'm hosting a Valentine's party at Hobbs Cafe at 17:00!"
ANSWER = "Marta's Valentine's party at Hobbs Cafe at 17:00."


def _test() -> tuple[Scenario, AwareTest]:
    scenario = load_scenario(TOWN, ["interviews.closed=false"])
    assert scenario.interviews is not None
    return scenario, aware_test(scenario, scenario.interviews.aware_when, NAMES)


def _said(answer: str, *evidence: str) -> InterviewAnswer:
    return InterviewAnswer("Any party?", answer, (), False, evidence=evidence)


def test_the_host_is_aware_from_her_thought_whatever_she_answers() -> None:
    scenario, aware = _test()
    thought = scenario.when(scenario.interventions[0].at)
    assert aware("marta_okafor", _said("yes"), thought + timedelta(hours=1))
    assert not aware("marta_okafor", _said("yes"), thought - timedelta(minutes=10))


def test_another_is_aware_when_the_answer_and_what_it_heard_both_state_the_fact() -> None:
    scenario, aware = _test()
    later = scenario.when(scenario.interviews.times[2])  # type: ignore[union-attr]
    assert aware("theo_park", _said(ANSWER, "Theo saw rain.", HEARD), later)
    assert not aware("theo_park", _said(ANSWER), later)  # the words alone: guessed or invented
    assert not aware("theo_park", _said(ANSWER, "Theo saw rain."), later)
    assert not aware("theo_park", _said("yes", HEARD), later)  # heard, but the answer says nothing
