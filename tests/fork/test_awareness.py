"""The town's awareness measure tells an agent who knows the party is on from one who knows
it is cancelled: a branch that calls the party off must not count its news as awareness."""

from pathlib import Path

from simulacra.experiments import load_scenario
from simulacra.experiments.facts import aware_test, knows_off
from simulacra.experiments.measures import diffusion
from simulacra.runlog import Event

CANCELLED = Path(__file__).parents[2] / "scenarios" / "town-cancelled.yaml"
NAMES = {"marta_okafor": "Marta Okafor", "theo_brandt": "Theo Brandt", "ana": "Ana Ruiz"}
ANSWERS = {
    "theo_brandt": "Yes, Marta's Valentine's party at Hobbs Cafe at 5 pm today.",
    "ana": "Marta's Valentine's party at Hobbs Cafe was cancelled, so nothing today.",
    # The host herself, after the correction: she knows her party is off.
    "marta_okafor": "No, the party at Hobbs Cafe is called off; there is no party.",
}


HEARD = "Conversation with Marta Okafor: come to my Valentine's party at Hobbs Cafe at 5 pm!"


def interviews(question: str, answers: dict[str, str], at: str) -> list[Event]:
    """Each agent heard the invitation (a dialogue memory) and answers resting on it: the
    awareness test's check against the memory stream is met, so only the answers differ."""
    events = []
    for i, (agent, text) in enumerate(answers.items()):
        kept = {"id": f"m{i}", "kind": "dialogue", "text": HEARD}
        asked = {"question": question, "answer": text, "memory_ids": [f"m{i}"]}
        events += [Event(2 * i, at, 0.0, "memory.add", agent, kept)]
        events += [Event(2 * i + 1, at, 0.0, "interview", agent, asked)]
    return events


def test_an_answer_that_says_the_party_is_cancelled_counts_as_off_not_aware() -> None:
    scenario = load_scenario(CANCELLED)
    plan = scenario.interviews
    assert plan is not None and plan.off_when
    test = aware_test(scenario, plan.aware_when, NAMES, plan.off_when)
    answers = {**ANSWERS, "unaware": "No, I have not heard of anything happening today."}
    events = interviews(plan.question, answers, "2024-02-14T19:00:00")
    (row,) = diffusion(events, plan.question, test, None, off=lambda a: knows_off(a, plan.off_when))
    assert row["agents"] == ["theo_brandt"] and row["aware"] == 1
    assert row["off"] == 2  # Ana and the host; the unaware agent is neither


def test_without_off_words_a_cancellation_still_reads_as_awareness() -> None:
    # The measure as it was (and as it stays for a scenario that gives no `off_when`).
    scenario = load_scenario(CANCELLED, ["interviews.off_when=[]"])
    plan = scenario.interviews
    assert plan is not None
    test = aware_test(scenario, plan.aware_when, NAMES, plan.off_when)
    events = interviews(plan.question, ANSWERS, "2024-02-14T19:00:00")
    (row,) = diffusion(events, plan.question, test)
    assert sorted(row["agents"]) == ["ana", "marta_okafor", "theo_brandt"]
    assert "off" not in row
