"""Stand-ins for a model on the embodied prompts, for tests and the pipeline check. Each
reads only what its prompt shows, and every run that used them is labelled scripted.

- caption: finds the target's label in the caption and answers like a careful model: what
  it sees, then one movement sentence last ("turn left 20 degrees and move forward 2 m").
- vlm: reads the image part (it must be there) and alternates a look around with a step
  forward, saying what the image's size and brightness were: it checks the plumbing, not
  navigation.
- talk: says where it is heading, once in a while.
"""

from __future__ import annotations

import io
import re

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.embodied.prompts import (
    PURPOSE_CAPTION,
    PURPOSE_TALK,
    PURPOSE_VLM,
    SILENCE,
)

_TASK = re.compile(r"Task: Find the (?P<target>.+?) and get close to it\.")
_SEEN = re.compile(r"What you see now: (?P<caption>.*)\.\n")
_ITEM = re.compile(
    r"the (?P<label>[^,;]+), (?P<distance>[\d.]+) m away, "
    r"(?:(?P<angle>\d+) degrees to the (?P<side>left|right)|straight ahead)"
)
_STEP = re.compile(r"- step (\d+):")
_OUTCOME = re.compile(r'^- step \d+: you said ".*" -> (?P<outcome>.*?)\. You were then at', re.M)


def _caption(request: Request) -> str:
    text = request.messages[-1].text
    task, seen = _TASK.search(text), _SEEN.search(text)
    if task is None or seen is None:
        return "I cannot tell what to do. stay"
    target = task["target"].strip()
    for item in _ITEM.finditer(seen["caption"]):
        label = item["label"].strip()
        if target not in label and label not in target:  # "logo" finds "logo panel"
            continue
        distance = float(item["distance"])
        angle = int(item["angle"] or 0)
        if distance <= 1.2 and angle <= 25:
            return f"The {target} is right in front of me, {distance:.1f} m away. stay"
        turn = f"turn {item['side']} {angle} degrees and " if angle >= 5 else ""
        step = min(2.0, max(0.5, distance - 0.9))
        return f"I see the {target} {distance:.1f} m away. {turn}move forward {step:.1f} m"
    outcomes = [m["outcome"] for m in _OUTCOME.finditer(text)]
    if outcomes and ("blocked" in outcomes[-1] or "edge" in outcomes[-1]):
        return f"Something is in my way and no {target} in sight. turn left 90 degrees"
    if len(outcomes) >= 4 and all(o.startswith("turned") for o in outcomes[-4:]):
        return f"No {target} in sight; I will try another spot. move forward 1.5 m"
    return f"I do not see the {target} yet. turn left 45 degrees"


def _vlm(request: Request) -> str:
    from PIL import Image

    images = [image for message in request.messages for image in message.images]
    if not images:
        raise ValueError("the scripted vision model got no image part")
    picture = Image.open(io.BytesIO(images[0].data)).convert("L")
    brightness = sum(picture.getdata()) / (picture.width * picture.height)
    steps = len(_STEP.findall(request.messages[-1].text))
    seen = f"A {picture.width}x{picture.height} view, mean brightness {brightness:.0f}."
    return f"{seen} " + ("turn left 30 degrees" if steps % 2 else "move forward 1 m")


def _talk(request: Request) -> str:
    task = _TASK.search(request.messages[-1].text)
    if task is None or request.seed % 2:
        return SILENCE
    return f"I am looking for the {task['target']}."


def script_embodied(model: ScriptedModel) -> ScriptedModel:
    model.on(PURPOSE_CAPTION, _caption)
    model.on(PURPOSE_VLM, _vlm)
    model.on(PURPOSE_TALK, _talk)
    return model
