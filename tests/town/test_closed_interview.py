"""The town's closed interview: each agent picks yes or no and whom it heard the news from
(one of the run's other agents, or nobody); a yes counts as aware only where a memory it rests
on, that it saw or heard, holds the fact, and the source it names is checked against who says
the fact in that memory."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from simulacra.core import InterviewAnswer
from simulacra.experiments import ScenarioError, load_scenario, run
from simulacra.experiments.facts import NOBODY, AwareTest, aware_test
from simulacra.experiments.measures import diffusion
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.mind.town.scripted import offered, sociable
from simulacra.runlog import Event, read_events

TOWN = Path(__file__).parents[2] / "scenarios" / "town.yaml"
NAMES = {"marta_okafor": "Marta Okafor", "theo_brandt": "Theo Brandt", "lena": "Lena Kowalski"}
AT = datetime(2024, 2, 14, 16, 0)
# What Lena heard in the demo (abridged): Theo says the party's words, she does not.
HEARD = (
    "Conversation with Theo Brandt at 15:10 on Wednesday February 14 (small talk):\n"
    "Theo Brandt: I want to host a Valentine's Party at Hobbs Cafe Today at 17:05.\n"
    "Lena Kowalski: I am going."
)
PLAN = "Lena Kowalski's plan: go to the Valentine's party at Hobbs Cafe at 17:00."


def _test() -> AwareTest:
    scenario = load_scenario(TOWN)
    assert scenario.interviews is not None and scenario.interviews.closed
    return aware_test(scenario, scenario.interviews.aware_when, NAMES)


def _said(choice: str, source: str, *evidence: str) -> InterviewAnswer:
    answer = "Yes, there is a party." if choice == "yes" else "No."
    return InterviewAnswer("Any party?", answer, (), False, choice, evidence, source)


def test_a_closed_question_offers_yes_or_no_and_the_other_agents_or_nobody() -> None:
    choices, sources = _test().asks("lena")
    assert choices == ("yes", "no")
    assert sources == ("Marta Okafor", "Theo Brandt", NOBODY)


def test_a_yes_is_aware_only_with_a_heard_memory_that_holds_the_fact() -> None:
    aware = _test()
    assert aware("lena", _said("yes", "Theo Brandt", HEARD), AT)
    # The cheat: yes to everything, resting on nothing heard (her own plan is no evidence,
    # and the fallback of an open answer's evidence is empty).
    assert not aware("lena", _said("yes", "Theo Brandt"), AT)
    assert not aware("lena", _said("yes", "Theo Brandt", "Lena saw rain."), AT)
    assert not aware("lena", _said("no", NOBODY, HEARD), AT)  # heard, but says no


def test_the_source_named_is_confirmed_only_by_the_speaker_of_the_fact() -> None:
    aware = _test()
    assert aware.confirms(_said("yes", "Theo Brandt", HEARD))
    assert not aware.confirms(_said("yes", "Lena Kowalski", HEARD))  # she only listened
    assert not aware.confirms(_said("yes", "Marta Okafor", HEARD))  # not in the memory
    assert not aware.confirms(_said("yes", NOBODY, HEARD))
    assert not aware.confirms(_said("yes", "Theo Brandt", PLAN))  # her plan names no speaker


def test_the_diffusion_row_lists_each_claim_and_whether_the_memories_confirm_it() -> None:
    aware = _test()
    asked = {"question": "Q", "answer": "Yes.", "memory_ids": ["l1"], "choice": "yes"}
    kept = {"id": "l1", "kind": "dialogue", "text": HEARD}
    theo = asked | {"source": "Lena Kowalski", "memory_ids": []}
    events = [
        Event(1, "2024-02-14T15:10:00", 0.0, "memory.add", "lena", kept),
        Event(
            2, "2024-02-14T16:00:00", 0.0, "interview", "lena", asked | {"source": "Theo Brandt"}
        ),
        Event(3, "2024-02-14T16:00:00", 0.0, "interview", "theo_brandt", theo),
    ]
    (row,) = diffusion(events, "Q", aware)
    assert row["agents"] == ["lena"]
    assert row["claims"] == {
        "lena": {"choice": "yes", "from_whom": "Theo Brandt", "confirmed": True},
        "theo_brandt": {"choice": "yes", "from_whom": "Lena Kowalski", "confirmed": False},
    }


def test_a_run_asks_each_agent_its_others_by_name_and_logs_choice_and_source(
    tmp_path: Path,
) -> None:
    model: ScriptedModel = sociable(load_model("scripted"))
    offers: dict[str, list[str]] = {}

    def recording(request: Request) -> dict[str, object]:
        name = request.messages[-1].text.split("'s memories:", 1)[0].rsplit("\n", 1)[-1]
        offers[name] = offered(request, "from_whom")
        return {"choice": "no", "from_whom": offers[name][0], "answer": "No."}

    model.on("interview.answer", recording)
    sets = ["agents.count=4", "clock.duration=4h", "memory.embedder=hashing"]
    sets += ['interviews.times=["10:00"]', f"output.root={tmp_path}"]
    done = run(load_scenario(TOWN, sets), model=model, progress=False)
    (start,) = read_events(done.events_path, {"run"})
    names = [str(info["name"]) for info in start.data["agents"].values()]
    assert sorted(offers) == sorted(names)
    for name, sources in offers.items():
        assert sources == [n for n in names if n != name] + [NOBODY]
    answers = list(read_events(done.events_path, {"interview"}))
    assert {a.data["choice"] for a in answers} <= {"yes", "no"}
    assert all(a.data["source"] in names for a in answers)  # the first offered: another
    (row,) = json.loads((done.path / "metrics.json").read_text())["diffusion"]
    assert set(row["claims"]) == {a.agent for a in answers}


def test_a_closed_question_without_the_facts_words_is_refused_naming_the_field() -> None:
    with pytest.raises(ScenarioError) as refused:
        load_scenario(TOWN, ["interviews.aware_when=[]"])
    assert "interviews.closed" in str(refused.value) and "aware_when" in str(refused.value)
