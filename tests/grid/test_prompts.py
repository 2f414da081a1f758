"""The grid's two prompts are the source's (appendix A.1), character for character; our extras
(a refused move, the places' capacities) appear only when a scenario asks for them."""

from dataclasses import replace
from typing import Any

from simulacra.llm import parse_output
from simulacra.mind.grid import (
    AgentView,
    MessageChoice,
    MoveChoice,
    action_prompt,
    message_prompt,
)
from simulacra.mind.grid.prompts import MESSAGE_FALLBACK, MOVE_FALLBACK, Received
from simulacra.worlds.grid import Place

CAFE = Place("cafe", "cafe", (-15, 0), (5, 5), 12)
LIBRARY = Place("library", "library", (15, 0), (5, 5), 10)

# The source's appendix example (A.1.3): agent 3 in the library at step 7, fire1 8.06 cells
# away, as the grid world's observation facts carry it.
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
SENT = "I can detect fire1 near the library; please stay alert."

# The source's example action prompt, as its template lays it out.
SOURCE_EXAMPLE = """\
You are Agent 3 (female) in a 2D world with multiple places (cafe, library).

=== YOUR CURRENT STATE ===
Gender: female
Position: (14, 2)
In place: Yes
Current place: library

You are currently in the library (library).
  Number of agents here: 3
  Capacity: 10
  Occupancy rate: 0.30

=== FIRE EVENT ===
Fire "fire1":
  Position: (15, 10)
  Intensity: 0.8 (scale: 0.0 to 1.0)
  Radius: 15
  Your distance: 8.06

=== PLACE LOCATIONS ===
cafe (cafe): center at (-15, 0), covers X from -20 to -10, Y from -5 to 5
library (library): center at (15, 0), covers X from 10 to 20, Y from -5 to 5

=== NEARBY AGENTS ===
Agent 1 (male) is at (16, 1) and is in library (library)

=== PREVIOUS MEMORY ===
- I entered the library to inspect its occupancy.

=== MESSAGES FROM OTHERS ===
from Agent 1: I can also see fire1 from inside the library.

=== MESSAGE YOU DECIDED TO SEND ===
I can detect fire1 near the library; please stay alert.
=== AVAILABLE ACTIONS ===
- "stay": remain at current position
- "move" with direction: "up" (Y+1), "down" (Y-1), "left" (X-1), "right" (X+1)

Field boundaries: X and Y from -25 to +25

=== RESPOND IN JSON ===
{
    "action": "move" or "stay",
    "direction": "up", "down", "left", or "right" (only if action is "move"),
    "memory": "what you want to remember for the next step (your thoughts, observations, \
intentions)",
    "reasoning": "brief explanation of your decision"
}

Step: 7
"""


def test_the_action_prompt_is_the_sources_example_character_for_character() -> None:
    [only] = action_prompt(VIEW, SENT)
    assert only.role == "user"  # the source sends one prompt, instructions included
    assert only.content == SOURCE_EXAMPLE


def test_the_message_prompt_hides_coordinates_and_asks_for_200_words_at_most() -> None:
    [only] = message_prompt(VIEW)
    text = only.content
    assert text.startswith("You are Agent 3 (female) in a 2D world with multiple places")
    assert "Gender: female\nIn place: Yes\nCurrent place: library\n\n" in text
    assert "=== NEARBY AGENTS (you can communicate with these agents) ===\n" in text
    assert "Agent 1 (male) is in library (library)\n" in text
    assert "(14, 2)" not in text and "(16, 1)" not in text and "PLACE LOCATIONS" not in text
    assert "message to nearby agents (max 200 words, optional if you don't want to send" in text
    assert text.endswith("}\n\nStep: 7\n")


def test_outside_with_nothing_known_says_so_in_the_sources_words() -> None:
    facts = FACTS | {"step": 1, "position": [0, 0], "place": None, "present": 0}
    view = AgentView.of("0", facts | {"gender": "male", "fires": [], "neighbours": []})
    [message] = message_prompt(view)
    assert "Gender: male\nIn place: No\n\n\n\n=== NEARBY AGENTS" in message.content
    assert "No nearby agents." in message.content and "FIRE EVENT" not in message.content
    assert "=== PREVIOUS MEMORY ===\nNo previous experiences." in message.content
    assert "=== MESSAGES FROM OTHERS ===\nNo messages received." in message.content
    [action] = action_prompt(view, "")
    assert "No messages received.\n=== AVAILABLE ACTIONS ===" in action.content


def test_our_extras_appear_only_when_asked_for() -> None:
    refused = AgentView.of("3", FACTS | {"refusal": "cafe is at capacity (12/12)"})
    [plain] = action_prompt(refused, "")
    [extra] = action_prompt(refused, "", ("refusal", "capacity"))
    assert "refused" not in plain.content and ", capacity 12" not in plain.content
    assert "Occupancy rate: 0.30\nYour last move was refused: cafe is at capacity" in extra.content
    assert "covers X from -20 to -10, Y from -5 to 5, capacity 12\n" in extra.content
    # Persona details, where a scenario gives any, follow the gender.
    [detailed] = message_prompt(AgentView.of("3", FACTS | {"details": [["age", "34"]]}))
    assert "Gender: female\nage: 34\nIn place: Yes" in detailed.content


def test_prompts_carry_no_judgement_words() -> None:
    for message in (*message_prompt(VIEW), *action_prompt(VIEW, "")):
        text = message.content.lower()
        assert not any(w in text for w in ("danger", "crowded", "comfortable", "flee", "safe"))


def test_a_message_keeps_its_first_200_words() -> None:
    long = " ".join(f"w{i}," for i in range(250))
    value = parse_output(f'{{"message": "{long}", "reasoning": "r"}}', MessageChoice)
    assert len(value.message.split()) == 200 and value.message.endswith("w199,")
    short = "Fire near the library!\nStay away."
    kept = parse_output(f'{{"message": {short!r}}}'.replace("'", '"'), MessageChoice)
    assert kept.message == short
    assert (
        "at most 200 words"
        in MessageChoice.model_json_schema()["properties"]["message"]["description"]
    )


def test_move_choice_reads_what_small_models_write() -> None:
    value = parse_output('{"action": "Move", "direction": " Up", "memory": null}', MoveChoice)
    assert value == MoveChoice(action="move", direction="up", memory="", reasoning="")
    assert parse_output('{"action": "stay", "direction": ""}', MoveChoice) == MoveChoice(
        action="stay"
    )


def test_fallbacks_are_silence_and_staying() -> None:
    assert MESSAGE_FALLBACK.message == "" and isinstance(MESSAGE_FALLBACK, MessageChoice)
    assert MOVE_FALLBACK.action == "stay" and MOVE_FALLBACK.direction is None
