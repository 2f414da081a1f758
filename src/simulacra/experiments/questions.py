"""The evaluation section of a scenario: the question bank and how `simulacra evaluate` uses it.

The bank (YAML beside the scenario, named by `evaluation.questions`) holds interview questions
in the source's five categories, the planted facts whose spread is measured, and the
acquaintance question. Questions may hold placeholders that the evaluation fills from the run
for each agent: {name} (the agent's), {other} (another agent's, one it was said to know when
there is one), {event} (the most important thing it saw before the interview), {date} and
{tomorrow} (the interview's day and the next, written out).
"""

from __future__ import annotations

from enum import StrEnum
from string import Formatter
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.core import Moment

PLACEHOLDERS = ("name", "other", "event", "date", "tomorrow")
BOOTSTRAP = 20  # resamples; each replays every ranking through TrueSkill (~1-3 ms a ranking)


class Category(StrEnum):
    """The source's five interview categories."""

    SELF_KNOWLEDGE = "self_knowledge"
    MEMORY = "memory"
    PLANS = "plans"
    REACTIONS = "reactions"
    REFLECTIONS = "reflections"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _placeholders(template: str) -> list[str]:
    return [name for _, name, _, _ in Formatter().parse(template) if name is not None]


def _check_template(template: str) -> str:
    try:
        names = _placeholders(template)
    except ValueError as exc:
        raise ValueError(f"{template!r}: {exc} (write a literal brace as {{{{ or }}}})") from None
    unknown = [n for n in names if n not in PLACEHOLDERS]
    if unknown:
        raise ValueError(
            f"{template!r}: unknown placeholder {{{unknown[0]}}}; known: "
            + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
        )
    return template


Template = Annotated[str, Field(min_length=1)]


class Fact(_Strict):
    """A planted fact: the question that probes it, and when an answer counts as knowing it
    by its words (for every group of words, one of them, whole words, any case; the words
    of a group that names the speaker need not be said by the speaker). `attendance`: the
    world's attendance (its place and window) is this fact's event, so that who came counts
    for it and `simulacra trace` follows it into schedules and arrivals."""

    question: Template
    aware_when: list[list[str]] = Field(min_length=1)
    attendance: bool = False

    @field_validator("question")
    @classmethod
    def _known(cls, value: str) -> str:
        return _check_template(value)


class QuestionBank(_Strict):
    """`categories`: the interview questions, about five a category. `facts`: planted facts
    by name. `acquaintance`: the question put to each agent about each other ({other})."""

    categories: dict[Category, list[Template]]
    facts: dict[str, Fact] = Field(default_factory=dict)
    acquaintance: Template = "Do you know {other}?"

    @field_validator("categories")
    @classmethod
    def _all_known(cls, value: dict[Category, list[str]]) -> dict[Category, list[str]]:
        for questions in value.values():
            for question in questions:
                _check_template(question)
        empty = [c.value for c, qs in value.items() if not qs]
        if empty:
            raise ValueError(f"category {empty[0]} lists no question")
        return value

    @field_validator("acquaintance")
    @classmethod
    def _names_other(cls, value: str) -> str:
        if "other" not in _placeholders(_check_template(value)):
            raise ValueError(f"{value!r} must name the other agent as {{other}}")
        return value


class EvaluationConfig(_Strict):
    """How `simulacra evaluate` questions a run (each field can be set with --set).

    `questions`: the bank (or the YAML file holding it). `at`: when the interviews happen
    (default: the run's last tick). `conditions`: the ablations answering, all from the same
    saved memories (default: every ablation the world has). `models`: further conditions,
    label -> model spec, answered with every module on. `agents` and `per_category` shrink
    the study. `judge`: the model that ranks and fact-checks answers (default: the run's);
    `judges`: independent rankings of each question (seeds). `bootstrap`: resamples for the
    intervals. `times`: when acquaintance and planted facts are probed (default: the first
    tick, each day's last tick). `seed`: for placeholders, blinding and bootstrap."""

    questions: QuestionBank | None = None
    at: Moment | None = None
    conditions: list[str] | None = None
    models: dict[str, str] = Field(default_factory=dict)
    agents: list[str] | None = None
    per_category: int | None = Field(default=None, ge=1)
    judge: str | None = None
    judges: int = Field(default=1, ge=1)
    bootstrap: int = Field(default=BOOTSTRAP, ge=0)
    times: list[Moment] | None = None
    social: bool = Field(default=True, description="acquaintance, diffusion and coordination")
    seed: int = 0

    @model_validator(mode="after")
    def _labels(self) -> EvaluationConfig:
        clash = [label for label in self.models if label in (self.conditions or ())]
        if clash:
            raise ValueError(f"models.{clash[0]}: the label is already a condition; rename it")
        return self
