from datetime import datetime
from typing import Any

from simulacra.core import Action, Observation
from simulacra.llm import Request, ScriptedModel
from simulacra.mind.elfarol import PURPOSE, ElFarolAgent, script_elfarol
from simulacra.runlog.events import Decided, Payload

NOW = datetime(2000, 1, 6, 21)
QUIET = Observation("0", "home", facts={"week": 6, "agents": 10, "seats": 6, "history": [2] * 5})


class Log:
    def __init__(self) -> None:
        self.events: list[tuple[Payload, str | None]] = []

    def emit(self, payload: Payload, *, t: datetime | None = None, agent: str | None = None) -> Any:
        self.events.append((payload, agent))


async def test_an_agent_goes_after_quiet_weeks_and_logs_its_decision() -> None:
    log = Log()
    agent = ElFarolAgent("0", script_elfarol(ScriptedModel()), seed=11, sink=log)
    assert await agent.decide("choose", QUIET, NOW) == Action("go", "go to the bar")
    ((decided, who),) = log.events
    assert isinstance(decided, Decided) and who == "0"
    assert (decided.purpose, decided.step, decided.choice, decided.fallback) == (
        PURPOSE,
        6,
        "go",
        False,
    )
    assert decided.parsed is not None and decided.parsed["choice"] == "go"
    assert decided.parsed["reason"].endswith(": 2 will go.")


async def test_a_model_that_answers_nonsense_leaves_the_agent_at_home_flagged_as_fallback() -> None:
    model = ScriptedModel()

    def nonsense(request: Request) -> str:
        return "I think I might go, or not."

    model.on(PURPOSE, nonsense)
    log = Log()
    agent = ElFarolAgent("0", model, seed=11, sink=log)
    assert await agent.decide("choose", QUIET, NOW) == Action("stay", "stay home")
    ((decided, _),) = log.events
    assert isinstance(decided, Decided) and decided.fallback and decided.choice == "stay"
    assert decided.error


async def test_an_agent_does_nothing_in_a_phase_it_does_not_know() -> None:
    agent = ElFarolAgent("0", ScriptedModel(), seed=11)
    assert await agent.decide("message", QUIET, NOW) is None
