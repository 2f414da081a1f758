"""Every prompt renders from a fixture, and every declared fallback fits its output model."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from simulacra.core import Observation
from simulacra.llm import Request, ScriptedModel
from simulacra.mind import Ablation
from simulacra.mind.context import CHARACTER_SYSTEM
from simulacra.mind.town import converse
from simulacra.mind.town.react_prompts import NOBODY, NOTHING

from .conftest import ISABELLA, ISABELLA_DAY, KLAUS, MONDAY, MakeAgent

PURPOSES = {
    "plan.daily",
    "plan.hourly",
    "plan.actions",
    "plan.replan",
    "plan.now",
    "summarize.day",
    "react.decide",
    "converse.turn",
    "converse.relation",
    "interview.answer",
    # The memory stream's own prompts start as the mind's do, so they share the cached prefix.
    "memory.importance",
    "reflect.questions",
    "reflect.insights",
}
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


async def test_each_prompt_renders_and_declares_a_fallback_that_fits(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    seen: dict[str, Request] = {}

    def capture(answer: dict[str, Any] | None) -> Callable[[Request], Any]:
        def responder(request: Request) -> Any:
            seen.setdefault(request.purpose, request)
            return answer if answer is not None else request.fallback

        return responder

    model.on("plan.daily", capture(ISABELLA_DAY))
    for purpose in PURPOSES - {"plan.daily"}:
        model.on(
            purpose,
            capture({"choice": "react", "target": NOBODY, "about": NOTHING})
            if purpose == "react.decide"
            else capture(None),
        )
    isabella = make_agent()
    await isabella.plan_day(MONDAY, yesterday="Isabella baked pies.")
    nine = MONDAY + timedelta(hours=9)
    await isabella.current_action(nine)
    await isabella.perceive(nine, Observation("isabella", "Hobbs Cafe", ()))
    salient = await isabella.perceive(
        nine,
        Observation("isabella", "Hobbs Cafe", ("the oven in the kitchen of Hobbs Cafe is on",)),
    )
    await isabella.react(nine, salient, ())
    await isabella.replan(nine, "the oven broke")
    await isabella.memory.add("observation", "Klaus is reading at the corner table", nine)
    await isabella.memory.reflect(nine)
    await converse(isabella, make_agent(KLAUS), nine, topic="the party", max_turns=2)
    await isabella.interview("What are you planning?", nine)
    await isabella.summarize_day(MONDAY + timedelta(hours=23))
    await make_agent(ablation=Ablation.NO_REFLECTION_NO_PLANNING).current_action(nine)

    assert set(seen) == PURPOSES
    for purpose, request in seen.items():
        system, user = (m.content for m in request.messages)
        assert not _PLACEHOLDER.search(system + user), purpose
        # Stable parts first, so that a server's prompt cache serves them: one system message,
        # then the persona, then the purpose's task; the situation comes last.
        assert system == CHARACTER_SYSTEM, purpose
        assert user.startswith(f"{ISABELLA.summary()}\n\nTask: "), purpose
        assert request.agent == "isabella"
        # The stream's prompts carry the stream's seed (this fixture's streams take 0).
        assert request.seed > 0 or purpose.startswith(("memory.", "reflect.")), purpose
        assert request.output is not None and request.fallback is not None
        request.output.model_validate(request.fallback.model_dump())  # type: ignore[union-attr]
