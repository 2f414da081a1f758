"""The call budget: one simulated day of 10-minute ticks stays under 6 calls per agent-hour
(the source's every record rated in its own call is half of it).

A small synthetic day stands in for the town: Isabella follows her plan; at the cafe customers
come and go (their actions change every tick), the coffee machine changes state, and Klaus drops
in twice. Every module is on; the scripted model answers with each prompt's fallback, except the
reaction, which talks to Klaus.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from simulacra.core import Observation
from simulacra.llm import Request, ScriptedModel
from simulacra.mind.town import Agent, converse
from simulacra.mind.town.react_prompts import NOBODY, NOTHING

from .conftest import KLAUS, MONDAY, MakeAgent

TICK = timedelta(minutes=10)
VISITS = {  # who is at the cafe when: id -> (arrival hour, departure hour)
    "maria": (8, 9),
    "tom": (10, 12),
    "klaus": (11, 12),
    "ayesha": (14, 16),
    "klaus2": (16, 17),
}
ACTIVITIES = ("ordering a latte", "reading", "chatting", "paying", "typing on a laptop")


def _react(request: Request) -> dict[str, object]:
    talk = "klaus" in request.messages[-1].content.lower()
    whom = "klaus" if talk else NOBODY
    return {"choice": "talk" if talk else "continue", "target": whom, "about": NOTHING}


def _cafe(now: datetime, tick: int) -> Observation:
    here = [v.removesuffix("2") for v, (a, b) in VISITS.items() if a <= now.hour < b]
    texts = [
        f"{v.title()} is in the cafe of Hobbs Cafe: {ACTIVITIES[(tick + i) % len(ACTIVITIES)]}"
        for i, v in enumerate(here)
    ]
    if (tick // 3) % 2:
        texts.append("the coffee machine in the kitchen of Hobbs Cafe is brewing")
    return Observation("isabella", "Hobbs Cafe", tuple(texts), tuple(here))


async def live_one_day(isabella: Agent, klaus: Agent, start: datetime = MONDAY) -> None:
    """The engine's loop, reduced: plan, then each tick act, perceive, react, reflect."""
    await isabella.plan_day(start)
    now, tick = start, 0
    while now < start + timedelta(days=1):
        step = await isabella.current_action(now)
        if step.place == "Hobbs Cafe":
            seen = _cafe(now, tick)
        else:
            seen = Observation("isabella", step.place, (f"Isabella is {step.description}",))
        salient = await isabella.perceive(now, seen)
        decision = await isabella.react(now, salient, seen.nearby_agents)
        if decision.choice == "talk" and decision.target == klaus.id:
            await converse(isabella, klaus, now, topic=decision.reason)
        await isabella.reflect_if_due(now)
        now, tick = now + TICK, tick + 1
    await isabella.summarize_day(now)


async def test_one_agent_day_stays_within_6_calls_per_hour(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("react.decide", _react)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await live_one_day(isabella, klaus)
    spent = model.ledger.by_agent["isabella"].calls
    assert model.ledger.by_purpose["react.decide"].calls >= 3  # the day did have news
    assert model.ledger.by_purpose["converse.turn"].calls >= 2  # and a conversation
    assert spent / 24 <= 6
