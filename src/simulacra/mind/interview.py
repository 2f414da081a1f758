"""Interview: answer a question in character from retrieved memories, naming the ones used.

The memories go into the prompt with their ids: the top-ranked that fit `MEMORY_TOKENS` (or
the model's window, if smaller). An interview is a probe that no prompt cache serves, so every
token of it is processed anew, and the best-ranked memories are the ones an answer rests on.
The answer cites ids; only ids that were in the prompt count. When the model cites none of
them, every id in the prompt is returned, because the answer was conditioned on all of them.

An interview reads and changes nothing: its retrieval leaves last-access times alone and its
model call is a probe (no prompt cache of the agent's holds it), so a run interviewed during
play does what the same run does without interviews.

A mind that plans also sees its plan for the day (the latest day plan or replan it holds);
under an ablation without planning the plan is withheld, as retrieval withholds plan records.
A closed question (`choices`, such as yes and no) gets an output model whose `choice` field is
an enum of exactly those choices, so that even a small model answers one of them; given
`sources` too (the names of the others in the run, and "nobody"), a `from_whom` field names
whom it heard it from. The decision comes first, the short answer after it: a small model
that cannot write an answer carrying what it knows can still make the choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model

from simulacra.core import InterviewAnswer
from simulacra.llm import MaxChars
from simulacra.memory import PLAN, WITNESSED, MemoryRecord
from simulacra.mind.context import MindContext, memory_lines
from simulacra.runlog.events import Interviewed

ANSWER_TOKENS = 120
MEMORY_IDS = 3  # the memories an answer may name
# The most an interview's memories take of its prompt, by approx_tokens (SmolLM2 counts about
# 1.4 times as many): the whole slot's room (about 700) made the demo's interviews about 1,300
# tokens each. Fewer (400, 500) made the embedded model loop in its answers
# (tests/mind/test_answers_do_not_loop.py).
MEMORY_TOKENS = 600
DAY_PLAN_LEVELS = ("day", "replan")


class InterviewOutput(BaseModel):
    # Bounded: one to three sentences, and the few memories they rest on.
    answer: Annotated[str, MaxChars(240)]
    memory_ids: list[Annotated[str, MaxChars(24)]] = Field(default=[], max_length=MEMORY_IDS)


FALLBACK = InterviewOutput(answer="I'm not sure how to answer that.")

INTERVIEW_SYSTEM = (
    "You play a character of a simulation who is being interviewed. Answer the question "
    "in the first person, in one to three sentences, using only the character's description "
    "and memories. Reply in JSON with the answer and the ids (in square brackets below) of the "
    "memories the answer relies on."
)
CLOSED_SYSTEM = (
    "You play a character of a simulation who is being interviewed. Using only the "
    "character's description and memories, pick the choice that is true for the character "
    "({choices}){source} and answer in the first person in one sentence. Reply in JSON with "
    "the choice, {fields}the answer and the ids (in square brackets below) of the memories "
    "it relies on."
)
SOURCE = ", say from whom the character heard it ({sources})"
CLOSED_ANSWER_CHARS = 160  # one sentence: the choice carries the decision

INTERVIEW_USER = """{plan}{name}'s memories:
{memories}

Interviewer: {question}
{name}:"""


def _enum(name: str, values: Sequence[str]) -> type[StrEnum]:
    members = {f"c{i}": v for i, v in enumerate(values)}
    enum: type[StrEnum] = StrEnum(name, members)  # type: ignore[misc]
    return enum


@cache
def closed_output(choices: tuple[str, ...], sources: tuple[str, ...] = ()) -> type[BaseModel]:
    """An interview output model whose `choice` must be one of `choices` and, given `sources`,
    whose `from_whom` must be one of them; the answer and its memories follow."""
    fields: dict[str, Any] = {"choice": (_enum("Choice", choices), ...)}
    if sources:
        fields["from_whom"] = (_enum("Source", sources), ...)
    fields["answer"] = (Annotated[str, MaxChars(CLOSED_ANSWER_CHARS)], ...)
    fields["memory_ids"] = (
        list[Annotated[str, MaxChars(24)]],
        Field(default=[], max_length=MEMORY_IDS),
    )
    model: type[BaseModel] = create_model("ClosedInterviewOutput", **fields)
    return model


def _system(choices: tuple[str, ...], sources: tuple[str, ...]) -> str:
    if not choices:
        return INTERVIEW_SYSTEM
    source = SOURCE.format(sources=", ".join(sources)) if sources else ""
    return CLOSED_SYSTEM.format(
        choices=" or ".join(choices), source=source, fields="from_whom, " if sources else ""
    )


def day_plan(ctx: MindContext[Any], now: datetime) -> MemoryRecord | None:
    """The plan the agent holds for today, if it plans at all."""
    if not ctx.ablation.plans:
        return None
    for record in reversed(ctx.memory.recent(len(ctx.memory))):
        same_day = record.created_at.date() == now.date() and record.created_at <= now
        if record.kind == PLAN and record.meta.get("level") in DAY_PLAN_LEVELS and same_day:
            return record
    return None


async def interview(
    ctx: MindContext[Any],
    question: str,
    now: datetime,
    choices: Sequence[str] = (),
    sources: Sequence[str] = (),
) -> InterviewAnswer:
    plan = day_plan(ctx, now)
    closed, named = tuple(choices), tuple(sources) if choices else ()
    output = closed_output(closed, named) if closed else InterviewOutput
    system = _system(closed, named)
    fields = {
        "plan": f"{plan.text}\n\n" if plan else "",
        "name": ctx.persona.name,
        "question": question,
    }
    room = ctx.room(system, INTERVIEW_USER.format(memories="", **fields), ANSWER_TOKENS)
    room = min(room, MEMORY_TOKENS)
    # Read without counting as an access: an interview changes nothing (recall touches none).
    recalled = ctx.recall(question, now, "interview.answer", room, with_ids=True)
    # The plan is shown once, above the memories (it titles itself: "<name>'s plan for ...").
    found = [r for r in recalled if plan is None or r.record.id != plan.id]
    user = INTERVIEW_USER.format(memories=memory_lines(found, with_ids=True), **fields)
    # A closed question's fallback takes the last choice (for yes or no: no) and the last
    # source (nobody).
    fallback = output.model_validate(
        FALLBACK.model_dump()
        | ({"choice": closed[-1]} if closed else {})
        | ({"from_whom": named[-1]} if named else {})
    )
    answer = await ctx.ask(
        "interview.answer",
        now,
        system,
        user,
        output,
        fallback,
        max_tokens=ANSWER_TOKENS,
        probe=True,
    )
    value = answer.value.model_dump(mode="json")
    shown = [r.record.id for r in found] + ([plan.id] if plan else [])
    cited = [i for i in dict.fromkeys(value["memory_ids"]) if i in shown]
    ids = tuple(cited or shown)
    witnessed = {r.record.id: r.record.text for r in found if r.record.kind in WITNESSED}
    evidence = tuple(witnessed[i] for i in ids if i in witnessed)
    text = str(value["answer"]).strip() or FALLBACK.answer
    choice, source = value.get("choice"), value.get("from_whom")
    logged = Interviewed(
        question=question, answer=text, memory_ids=list(ids), choice=choice, source=source
    )
    ctx.emit(logged, now)
    return InterviewAnswer(question, text, ids, answer.fallback, choice, evidence, source)
