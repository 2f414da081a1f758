"""Interview: answer a question in character from retrieved memories, naming the ones used.

The memories go into the prompt with their ids. The answer cites ids; only ids that were in
the prompt count. When the model cites none of them, every id in the prompt is returned,
because the answer was conditioned on all of them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field

from simulacra.core import InterviewAnswer
from simulacra.llm import MaxChars
from simulacra.mind.context import MindContext, memory_lines
from simulacra.runlog.events import Interviewed

INTERVIEW_MEMORIES = 12


class InterviewOutput(BaseModel):
    # Bounded: one to three sentences, and the few memories they rest on.
    answer: Annotated[str, MaxChars(240)]
    memory_ids: list[Annotated[str, MaxChars(24)]] = Field(default=[], max_length=3)


FALLBACK = InterviewOutput(answer="I'm not sure how to answer that.")

INTERVIEW_SYSTEM = (
    "You play a character of a simulation who is being interviewed. Answer the question "
    "in the first person, in one to three sentences, using only the character's description "
    "and memories. Reply in JSON with the answer and the ids (in square brackets below) of the "
    "memories the answer relies on."
)

INTERVIEW_USER = """{name}'s memories:
{memories}

Interviewer: {question}
{name}:"""


async def interview(ctx: MindContext[Any], question: str, now: datetime) -> InterviewAnswer:
    found = ctx.recall(question, now, k=INTERVIEW_MEMORIES)
    user = INTERVIEW_USER.format(
        name=ctx.persona.name,
        memories=memory_lines(found, with_ids=True),
        question=question,
    )
    answer = await ctx.ask(
        "interview.answer", now, INTERVIEW_SYSTEM, user, InterviewOutput, FALLBACK, max_tokens=120
    )
    shown = [r.record.id for r in found]
    cited = [i for i in dict.fromkeys(answer.value.memory_ids) if i in shown]
    ids = tuple(cited or shown)
    text = answer.value.answer.strip() or FALLBACK.answer
    ctx.emit(Interviewed(question=question, answer=text, memory_ids=list(ids)), now)
    return InterviewAnswer(question, text, ids, answer.fallback)
