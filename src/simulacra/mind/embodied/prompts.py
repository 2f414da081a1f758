"""The embodied agent's prompt (the source's Appendix A.2.1), as data.

The text holds the task, the movement conventions, the current pose, the recent history
(each earlier reply flattened to one line of at most 160 characters, what came of it and the
pose it led to), the nudge after three idle decisions, and the question. The model answers in
free text; the world's interpreter reads the movement from it. A `vlm` agent gets the
first-person image beside the text; a `caption` agent is told what its view holds in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from simulacra.llm import ImagePart, Message, TextPart

PURPOSE_VLM = "embodied.decide.vlm"
PURPOSE_CAPTION = "embodied.decide.caption"
PURPOSE_TALK = "embodied.talk"
FALLBACK = "(no reply from the model)"  # reads as no movement: nothing is invented
SILENCE = "NOTHING"
HISTORY_CHARS = 160
IDLE_BEFORE_NUDGE = 3

INSTRUCTIONS = (
    "Briefly say what you see and why you are moving, then state your next single movement "
    'in one sentence, LAST. Examples of the movement sentence: "move forward 2 m", '
    '"turn right 30 degrees", "look up 30 degrees", "stay".'
)
CONVENTIONS = (
    "Movement conventions: distances are in metres unless you name another unit; angles are "
    "in degrees. Turning left is counter-clockwise. You can look up or down, but not "
    "straight up or straight down."
)
SEES_IMAGE = "The image is your own first-person view."
READS_CAPTION = "You are told in words what your own first-person view shows."
NUDGE = "You have not moved for several steps. Try something different."
QUESTION = "What is your next single movement?"

TALK = """\
{setting}
Task: {task}
Agents near you: {nearby}.
{heard}Say one short sentence to them that may help (at most 30 words), or reply {silence} \
if you have nothing to say."""


@dataclass(frozen=True)
class Entry:
    """One earlier decision as the history shows it."""

    step: int
    said: str
    outcome: str
    pose: Mapping[str, float]
    idle: bool

    def line(self) -> str:
        return (
            f'- step {self.step}: you said "{flatten(self.said)}" -> {self.outcome}. '
            f"You were then at {pose_text(self.pose)}."
        )


@dataclass(frozen=True)
class Situation:
    """Everything one decision's prompt shows."""

    setting: str
    task: str
    pose: Mapping[str, float]
    history: tuple[Entry, ...] = ()
    caption: str | None = None
    messages: tuple[Mapping[str, str], ...] = field(default=())

    @property
    def nudged(self) -> bool:
        latest = self.history[-IDLE_BEFORE_NUDGE:]
        return len(latest) == IDLE_BEFORE_NUDGE and all(e.idle for e in latest)


def flatten(text: str, limit: int = HISTORY_CHARS) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


def pose_text(pose: Mapping[str, float]) -> str:
    return (
        f"position ({pose['x']:.2f}, {pose['y']:.2f}) m, heading {pose['yaw']:.0f} deg, "
        f"gaze {pose['pitch']:+.0f} deg"
    )


def task_prompt(setting: str, task: str, *, image: bool) -> str:
    """The fixed part: the scenario's setting, how the agent sees, the task, how to answer."""
    sees = SEES_IMAGE if image else READS_CAPTION
    return f"{setting} {sees}\nTask: {task}\n{INSTRUCTIONS}"


def decision_text(situation: Situation, *, image: bool) -> str:
    """The whole text of one decision's prompt (Appendix A.2.1)."""
    parts = [
        task_prompt(situation.setting, situation.task, image=image),
        CONVENTIONS,
        f"Your current pose: {pose_text(situation.pose)}.",
    ]
    if situation.caption is not None:
        parts.append(f"What you see now: {situation.caption}.")
    if situation.messages:
        heard = "\n".join(f'- {m["from"]}: "{flatten(m["text"])}"' for m in situation.messages)
        parts.append(f"Messages from agents near you:\n{heard}")
    if situation.history:
        lines = "\n".join(entry.line() for entry in situation.history)
        parts.append(f"What you did recently:\n{lines}")
    if situation.nudged:
        parts.append(NUDGE)
    parts.append(QUESTION)
    return "\n\n".join(parts)


def decision_messages(situation: Situation, image: bytes | None) -> tuple[Message, ...]:
    """One user message: the image first (where there is one), then the text."""
    text = decision_text(situation, image=image is not None)
    if image is None:
        return (Message("user", text),)
    return (Message("user", (ImagePart(image, "image/png"), TextPart(text))),)


def talk_messages(
    setting: str, task: str, nearby: Sequence[str], heard: Sequence[Mapping[str, Any]]
) -> tuple[Message, ...]:
    said = "".join(f'{m["from"]} said: "{flatten(str(m["text"]))}"\n' for m in heard)
    text = TALK.format(
        setting=setting, task=task, nearby=", ".join(nearby), heard=said, silence=SILENCE
    )
    return (Message("user", text),)


def is_silence(text: str) -> bool:
    return not text.strip() or text.strip().strip(".!\"'").upper() == SILENCE
