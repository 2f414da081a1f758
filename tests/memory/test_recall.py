"""The source's party case, memory side: an invitation survives days of routine observations."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

from simulacra.embed import HashingEmbedder
from simulacra.llm import Request, ScriptedModel
from simulacra.memory import MemoryStream

START = datetime(2023, 2, 10, 7, 0)
PEOPLE = ["Klaus", "Maria", "Tom", "Ayesha", "Carmen", "Sam", "Jennifer", "Eddy"]
DOINGS = [
    "is drinking coffee at Hobbs Cafe",
    "is reading a book at the library",
    "is walking to the supply store",
    "is planning the day over breakfast",
    "is painting in the park",
    "is talking about the weather",
    "is cooking lunch at home",
    "is sleeping",
]
INVITATION = "Isabella invited me to her Valentine's Day party at Hobbs Cafe on February 14 at 5pm"


def rate_like_a_model(request: Request) -> dict[str, int]:
    memory = request.messages[-1].content
    return {"rating": 8 if "party" in memory else 2}


async def test_a_party_invitation_is_recalled_days_later_among_thousands_of_observations() -> None:
    model = ScriptedModel()
    model.on("memory.importance", rate_like_a_model)
    stream = MemoryStream("maria", HashingEmbedder(), model=model)
    routine = itertools.cycle(
        [f"{who} {doing}" for who, doing in itertools.product(PEOPLE, DOINGS)]
    )
    now = START
    for tick in range(1_000):  # three observations every 5 minutes: about 3.5 days
        if tick == 40:
            await stream.add("dialogue", INVITATION, now)
        await stream.add_many("observation", list(itertools.islice(routine, 3)), now)
        now += timedelta(minutes=5)
    assert len(stream) == 3_001
    asked = now + timedelta(hours=2)
    found = stream.retrieve("What are your plans for Valentine's Day, February 14?", asked, k=5)
    assert INVITATION in [r.record.text for r in found]
    invitation = stream.get(found[[r.record.text for r in found].index(INVITATION)].record.id)
    assert invitation.importance_source == "scripted" and invitation.importance == 8
