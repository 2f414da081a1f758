"""Planted facts: which of a scenario's thoughts plants a fact and who holds it from when, and
whether an answer knows it by the fact's words.

A fact is planted by the first `thought` intervention whose text, read as its agent's own
words, holds the fact's words (`aware_when`): a group of words that names the agent holds of
its own words ("I have decided to run for mayor" is Sam Whitaker's candidacy). The agent who
thinks it is the fact's owner, aware from that moment, as the source counts its host.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from simulacra.core import mentions_all
from simulacra.experiments.scenario import Scenario

Words = Sequence[Sequence[str]]
_NAME_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class Planting:
    """Who was given the fact, when, and in which words."""

    owner: str
    at: datetime
    text: str


def own_words(groups: Words, name: str) -> list[Sequence[str]]:
    """The groups that an agent called `name` need not say of itself: those naming it."""
    own = set(_NAME_WORD.findall(name.lower()))
    return [g for g in groups if not own & {w.lower() for w in g}]


def knows_by_words(answer: str, groups: Words, name: str) -> bool:
    """Whether `answer`, said by the agent called `name`, holds a word of every group (those
    that name the speaker aside): the keyword test."""
    rest = own_words(groups, name)
    return mentions_all(answer, rest) if rest else bool(groups)


def planting(scenario: Scenario, groups: Words, names: Mapping[str, str]) -> Planting | None:
    """The thought that plants the fact described by `groups`, if the scenario has one."""
    for item in scenario.interventions:
        if item.type != "thought" or not item.agent:
            continue
        if knows_by_words(item.text, groups, names.get(item.agent, item.agent)):
            return Planting(item.agent, scenario.when(item.at), item.text)
    return None


def knows_off(answer: str, off: Words) -> bool:
    """Whether `answer` says the fact is called off: it holds a word of every group of `off`
    (the scenario's `interviews.off_when`; none given, no answer does)."""
    return mentions_all(answer, off)


def aware_test(
    scenario: Scenario, groups: Words, names: Mapping[str, str], off: Words = ()
) -> Callable[[str, str, datetime, Sequence[str]], bool]:
    """The in-run interviews' test: (agent, answer, now, evidence) -> aware. An answer that
    says the fact is off (`off`) is not aware of it happening; otherwise the fact's owner is
    aware from the moment it is planted, and anyone else when its answer holds the fact's
    words and so does one of its evidence's texts (what it saw or heard that the answer rests
    on): the source checked its interviews against the memory stream, so that an answer that
    guesses or invents the fact does not count."""
    planted = planting(scenario, groups, names)

    def aware(agent: str, answer: str, now: datetime, evidence: Sequence[str]) -> bool:
        if knows_off(answer, off):
            return False
        if planted is not None and agent == planted.owner and now >= planted.at:
            return True
        name = names.get(agent, agent)
        heard = any(knows_by_words(text, groups, name) for text in evidence)
        return heard and knows_by_words(answer, groups, name)

    return aware


def awareness_method(judge: str, fallbacks: int) -> str:
    """How answers were judged aware, in words for eval.json, diagnose.json and the report."""
    if judge == "scripted":
        return "keywords (the scripted model stands in for a judge: it answers with the test)"
    return f"judge {judge}, yes or no against the fact; keywords in {fallbacks} failed calls"
