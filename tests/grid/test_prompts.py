from dataclasses import replace
from typing import Any

from simulacra.llm import parse_output
from simulacra.mind.grid import AgentView, MessageChoice, MoveChoice, action_prompt, message_prompt
from simulacra.mind.grid.prompts import MESSAGE_FALLBACK, MOVE_FALLBACK, Received
from simulacra.worlds.grid import Place

CAFE = Place("cafe", "cafe", (-15, 0), (5, 5), 12)
LIBRARY = Place("library", "library", (15, 0), (5, 5), 10)

# The source's appendix example: agent 3 in the library at step 7, fire1 8.06 cells away, as
# the grid world's observation facts carry it.
FACTS: dict[str, Any] = {
    "step": 7,
    "gender": "female",
    "details": [],
    "position": [14, 2],
    "place": LIBRARY.facts(),
    "present": 3,
    "places": [CAFE.facts(), LIBRARY.facts()],
    "half_size": 25,
    "fires": [
        {"name": "fire1", "position": [15, 10], "intensity": 0.8, "radius": 15, "distance": 8.0623}
    ],
    "neighbours": [{"agent": "1", "gender": "male", "position": [16, 1], "place": LIBRARY.facts()}],
    "refusal": "",
}
VIEW = replace(
    AgentView.of("3", FACTS),
    memories=("I entered the library to inspect its occupancy.",),
    received=(Received(7, "1", "I can also see fire1 from inside the library."),),
)


def test_message_prompt_renders_the_numeric_state_without_coordinates() -> None:
    system, user = message_prompt(VIEW)
    assert system.content.startswith("You are agent 3 (female)")
    assert "cafe, library" in system.content
    assert "agents here: 3; capacity: 10; occupancy rate: 0.30" in user.content
    assert '"fire1": position (15, 10); intensity 0.8 (scale 0.0 to 1.0); radius 15' in user.content
    assert "your distance 8.06" in user.content
    assert "- agent 1 (male), in library (library)" in user.content
    assert "(14, 2)" not in user.content and "(16, 1)" not in user.content
    assert "- from agent 1 (step 7): I can also see fire1" in user.content
    assert "- I entered the library to inspect its occupancy." in user.content
    assert "Step 7" in user.content


def test_action_prompt_adds_coordinates_places_and_the_sent_message() -> None:
    _, user = action_prompt(VIEW, "I can detect fire1 near the library; please stay alert.")
    assert "- position: (14, 2)" in user.content
    assert "- library (library): center (15, 0); x from 10 to 20, y from -5 to 5" in user.content
    assert "- agent 1 (male) at (16, 1), in library (library)" in user.content
    assert "## The message you sent this step\nI can detect fire1" in user.content
    assert "The field spans x and y from -25 to 25." in user.content


def test_prompts_carry_no_judgement_words() -> None:
    for message in (*message_prompt(VIEW), *action_prompt(VIEW, "")):
        text = message.content.lower()
        assert not any(w in text for w in ("danger", "crowded", "comfortable", "flee", "safe"))


def test_outside_with_nothing_known_says_none() -> None:
    facts = FACTS | {"step": 1, "position": [0, 0], "place": None, "present": 0}
    view = AgentView.of("0", facts | {"gender": "male", "fires": [], "neighbours": []})
    _, user = message_prompt(view)
    assert "- inside a place: no" in user.content
    assert "## Fires" not in user.content
    assert "## Agents you can talk to\nnone" in user.content
    assert "## Your memories\nnone yet" in user.content
    _, user = action_prompt(view, "")
    assert "The message you sent" not in user.content


def test_a_refused_move_and_persona_details_are_told() -> None:
    refused = {"refusal": "cafe is at capacity (12/12)", "details": [["age", "34"]]}
    view = AgentView.of("3", FACTS | refused)
    _, user = message_prompt(view)
    assert "- age: 34" in user.content
    assert "- last step your move was refused: cafe is at capacity (12/12)" in user.content


def test_move_choice_reads_what_small_models_write() -> None:
    value = parse_output('{"action": "Move", "direction": " Up", "memory": null}', MoveChoice)
    assert value == MoveChoice(action="move", direction="up", memory="", reasoning="")
    assert parse_output('{"action": "stay", "direction": ""}', MoveChoice) == MoveChoice(
        action="stay"
    )


def test_fallbacks_are_silence_and_staying() -> None:
    assert MESSAGE_FALLBACK.message == "" and isinstance(MESSAGE_FALLBACK, MessageChoice)
    assert MOVE_FALLBACK.action == "stay" and MOVE_FALLBACK.direction is None
