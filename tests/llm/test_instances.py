"""Neither the number of embedded model instances nor their threads changes an answer: agents'
calls in flight together (each reusing its own slot's cache) and probes beside them give the
same texts on one instance as on two, whichever calls share a batch and whichever shared slot
takes a probe, and on one, two or three threads an instance."""

from __future__ import annotations

import asyncio

import pytest

from simulacra.llm import Completion, Request, chat, load_model

pytestmark = pytest.mark.slow

AGENTS = ("ana", "ben", "cai")
TOWN = "Willow Bend has a square, a flower stall, a library and Hobbs Cafe, open from seven. "


def ask(
    agent: str, task: str, seed: int, probe: bool = False, town: int = 3, tokens: int = 20
) -> Request:
    persona = f"You are {agent}, who lives in Willow Bend. {TOWN * town}"
    return Request(
        chat(persona, task),
        max_tokens=tokens,
        temperature=0.8,  # sampling shows the slightest change in the logits
        seed=seed,
        agent=agent,
        probe=probe,
        purpose="interview.answer" if probe else "plan.next",
    )


async def play(
    instances: int, threads: int = 1, town: int = 3, tokens: int = 20
) -> list[Completion]:
    spec = f"embedded?instances={instances}&parallel=4&threads={threads}"
    model = load_model(spec, concurrency=8)
    # Each agent's second call extends its first's prefix, read from its slot's cache.
    first, noon, party = "What do you do first this morning?", "And at noon?", "A party today?"
    rounds = [
        [ask(a, first, i, town=town, tokens=tokens) for i, a in enumerate(AGENTS)],
        [
            *(ask(a, noon, 10 + i, town=town, tokens=tokens) for i, a in enumerate(AGENTS)),
            *(ask(a, party, 20 + i, True, town, tokens) for i, a in enumerate(AGENTS)),
        ],
    ]
    completions = []
    for requests in rounds:
        completions += await asyncio.gather(*(model.complete(r) for r in requests))
    await model.aclose()
    return completions


async def test_one_instance_and_two_give_the_same_answers() -> None:
    one, two = await play(1), await play(2)
    assert [c.text for c in one] == [c.text for c in two]
    for completions in (one, two):
        assert not any(c.fallback for c in completions)
        again = completions[len(AGENTS) : 2 * len(AGENTS)]
        assert all(c.usage.cached_prompt_tokens > 0 for c in again)  # the cache was read
        assert all(c.usage.cached_prompt_tokens == 0 for c in completions[2 * len(AGENTS) :])


async def test_one_two_and_three_threads_give_the_same_answers() -> None:
    # Prompts of about 300 tokens: with flash attention on, llama.cpp splits a generated
    # token's attention between threads when the cache holds enough tokens, and 2 threads then
    # wrote other replies than 1 here (with prompts of about 90 tokens, the same).
    one, two, three = [await play(1, threads, town=12, tokens=44) for threads in (1, 2, 3)]
    assert [c.text for c in one] == [c.text for c in two] == [c.text for c in three]
