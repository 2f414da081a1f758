"""Planted facts: which of a scenario's thoughts plants a fact and who holds it from when, and
whether an answer knows it by the fact's words.

A fact is planted by the first `thought` intervention whose text, read as its agent's own
words, holds the fact's words (`aware_when`): a group of words that names the agent holds of
its own words ("I have decided to run for mayor" is Sam Whitaker's candidacy). The agent who
thinks it is the fact's owner, aware from that moment, as the source counts its host.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from simulacra.core import InterviewAnswer, mentions_all
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


YES_NO = ("yes", "no")
NOBODY = "nobody"  # the last source a closed question offers: heard it from no one


def said_by(text: str, name: str, groups: Words) -> bool:
    """Whether a line of `text` that `name` says ("Name: ..." in a conversation, "Name said:
    ..." in news passed on) holds the fact's words (those naming the speaker aside)."""
    for line in text.splitlines():
        for lead in (f"{name}:", f"{name} said:"):
            if line.startswith(lead) and knows_by_words(line[len(lead) :], groups, name):
                return True
    return False


@dataclass(frozen=True)
class AwareTest:
    """The in-run interviews' test (see `aware_test`), and for a closed question what it asks
    each agent and whether the memory stream bears out whom an answer names as its source."""

    groups: Words
    names: Mapping[str, str]
    off: Words
    planted: Planting | None
    closed: bool

    def asks(self, agent: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """A closed question's choices (yes, no) and sources: the run's other agents by name,
        then nobody; both empty for an open question."""
        if not self.closed:
            return (), ()
        others = tuple(dict.fromkeys(n for a, n in self.names.items() if a != agent))
        return YES_NO, (*others, NOBODY)

    def __call__(self, agent: str, answer: InterviewAnswer, now: datetime) -> bool:
        if knows_off(answer.answer, self.off):
            return False
        planted = self.planted
        if planted is not None and agent == planted.owner and now >= planted.at:
            return True
        name = self.names.get(agent, agent)
        heard = any(knows_by_words(text, self.groups, name) for text in answer.evidence)
        if self.closed:  # the choice carries the decision; the memories must bear it out
            return heard and answer.choice == YES_NO[0]
        return heard and knows_by_words(answer.answer, self.groups, name)

    def confirms(self, answer: InterviewAnswer) -> bool:
        """Whether one of the answer's evidence texts has its named source state the fact."""
        source = answer.source
        if not source or source == NOBODY:
            return False
        return any(said_by(text, source, self.groups) for text in answer.evidence)


def aware_test(
    scenario: Scenario, groups: Words, names: Mapping[str, str], off: Words = ()
) -> AwareTest:
    """The in-run interviews' test: (agent, answer, now) -> aware. An answer that says the
    fact is off (`off`) is not aware of it happening; otherwise the fact's owner is aware
    from the moment it is planted, and anyone else when its answer holds the fact's words (a
    closed question's: when it chooses yes) and so does one of its evidence's texts (what it
    saw or heard that the answer rests on): the source checked its interviews against the
    memory stream, so that an answer that guesses or invents the fact does not count."""
    plan = scenario.interviews
    closed = plan is not None and plan.closed
    return AwareTest(groups, names, off, planting(scenario, groups, names), closed)


def awareness_method(judge: str, fallbacks: int) -> str:
    """How answers were judged aware, in words for eval.json, diagnose.json and the report."""
    if judge == "scripted":
        return "keywords (the scripted model stands in for a judge: it answers with the test)"
    return f"judge {judge}, yes or no against the fact; keywords in {fallbacks} failed calls"
