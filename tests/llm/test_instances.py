"""The number of embedded model instances changes no answer: agents' calls in flight together
(each reusing its own slot's cache) and probes beside them give the same texts on one
instance as on two, whichever calls share a batch and whichever shared slot takes a probe."""

from __future__ import annotations

import asyncio

import pytest

from simulacra.llm import Completion, Request, chat, load_model

pytestmark = pytest.mark.slow

AGENTS = ("ana", "ben", "cai")
TOWN = "Willow Bend has a square, a flower stall, a library and Hobbs Cafe, open from seven. "


def ask(agent: str, task: str, seed: int, probe: bool = False) -> Request:
    persona = f"You are {agent}, who lives in Willow Bend. {TOWN * 3}"
    return Request(
        chat(persona, task),
        max_tokens=20,
        temperature=0.8,  # sampling shows the slightest change in the logits
        seed=seed,
        agent=agent,
        probe=probe,
        purpose="interview.answer" if probe else "plan.next",
    )


async def play(instances: int) -> list[Completion]:
    model = load_model(f"embedded?instances={instances}&parallel=4", concurrency=8)
    # Each agent's second call extends its first's prefix, read from its slot's cache.
    rounds = [
        [ask(a, "What do you do first this morning?", i) for i, a in enumerate(AGENTS)],
        [
            *(ask(a, "And what do you do at noon?", 10 + i) for i, a in enumerate(AGENTS)),
            *(ask(a, "Do you know of a party today?", 20 + i, True) for i, a in enumerate(AGENTS)),
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
