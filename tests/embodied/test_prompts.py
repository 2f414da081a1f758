"""The embodied prompt (Appendix A.2.1) rendered from fixtures, the history and the nudge,
and the caption in words."""

from __future__ import annotations

from simulacra.llm import ImagePart
from simulacra.mind.embodied import Entry, Situation, decision_messages, decision_text, describe
from simulacra.mind.embodied.prompts import NUDGE, flatten

SETTING = 'You are an agent standing inside the Japanese Experiment Module "Kibo" of the ISS.'
TASK = "Find JAXA logo and get close to it."
POSE = {"x": 4.0, "y": 20.1, "yaw": 180.0, "pitch": 0.0}

# The source's example for decision step 0 (Appendix A.2.2).
SOURCE_STEP_0 = (
    'You are an agent standing inside the Japanese Experiment Module "Kibo" of the ISS. '
    "The image is your own first-person view.\nTask: Find JAXA logo and get close to it.\n"
    "Briefly say what you see and why you are moving, then state your next single movement "
    'in one sentence, LAST. Examples of the movement sentence: "move forward 2 m", '
    '"turn right 30 degrees", "look up 30 degrees", "stay".\n\n'
    "Movement conventions: distances are in metres unless you name another unit; angles are "
    "in degrees. Turning left is counter-clockwise. You can look up or down, but not straight "
    "up or straight down.\n\n"
    "Your current pose: position (4.00, 20.10) m, heading 180 deg, gaze +0 deg.\n\n"
    "What is your next single movement?"
)


def _entry(step: int, idle: bool, said: str = "move forward 2 m") -> Entry:
    return Entry(
        step, said, "moved 2.00 m" if not idle else "you stayed where you were", POSE, idle
    )


def test_step_zero_reads_as_the_source_example() -> None:
    assert decision_text(Situation(SETTING, TASK, POSE), image=True) == SOURCE_STEP_0


def test_the_image_comes_first_as_a_part() -> None:
    (message,) = decision_messages(Situation(SETTING, TASK, POSE), b"\x89PNG fake")
    assert isinstance(message.content[0], ImagePart)
    assert message.text.endswith("What is your next single movement?")


def test_history_lines_are_flattened_to_160_characters() -> None:
    said = "I see racks.\n" + "word " * 60 + "\nmove forward 2 m"
    text = decision_text(Situation(SETTING, TASK, POSE, (_entry(0, False, said),)), image=True)
    line = next(x for x in text.splitlines() if x.startswith("- step 0:"))
    quoted = line.split('"')[1]
    assert len(quoted) <= 160 and "\n" not in quoted
    assert line.endswith(
        "-> moved 2.00 m. You were then at position (4.00, 20.10) m, heading 180 deg, gaze +0 deg."
    )
    assert flatten("a  b\n c") == "a b c"


def test_the_nudge_follows_three_idle_decisions_only() -> None:
    idle = tuple(_entry(i, True) for i in range(3))
    assert NUDGE in decision_text(Situation(SETTING, TASK, POSE, idle), image=True)
    mixed = (*idle[:2], _entry(2, False))
    assert NUDGE not in decision_text(Situation(SETTING, TASK, POSE, mixed), image=True)


def test_the_caption_agent_is_told_its_view_in_words() -> None:
    visible = [
        {"label": "rack", "share": 0.2, "distance_m": 0.5, "bearing_deg": 40.0},
        {"label": "rack", "share": 0.2, "distance_m": 0.5, "bearing_deg": -40.0},
        {"label": "logo panel", "share": 0.01, "distance_m": 4.2, "bearing_deg": 20.0},
    ]
    caption = describe(visible)
    assert caption == (
        "racks on the left and on the right; the logo panel, 4.2 m away, 20 degrees to the left"
    )
    text = decision_text(Situation(SETTING, TASK, POSE, caption=caption), image=False)
    assert "You are told in words what your own first-person view shows." in text
    assert f"What you see now: {caption}." in text
    assert describe([]) == "nothing you can make out"
