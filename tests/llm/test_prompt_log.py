"""The prompt log keeps every prompt a run sends, each distinct prefix once, and gives each
back exactly."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.llm import ImagePart, Message, TextPart, chat
from simulacra.llm.prompt_log import PromptLog, prompt_of, read_prompts

IDENTITY = "I am a student, 20.\nTrip: a to b, 2 km.\nModes allowed: walk, bus."


def lines(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_prompt_comes_back_exactly_and_a_shared_prefix_is_kept_once(tmp_path: Path) -> None:
    log = PromptLog(tmp_path / "prompts.jsonl")
    monday = chat("Answer in JSON.", f"{IDENTITY}\nThis week:\nDay 1: bus.\nPlan.")
    tuesday = chat("Answer in JSON.", f"{IDENTITY}\nThis week:\nDay 1: bus.\nDay 2: walk.\nPlan.")
    first = log.keep(monday)
    size = len(lines(tmp_path / "prompts.jsonl"))
    second = log.keep(tuesday)
    kept = lines(tmp_path / "prompts.jsonl")
    # The first prompt's seven lines, each kept once as a line and once as a chunk of the
    # chain; the second adds a chunk for "Day 2" and its line, and a chunk for the "Plan."
    # that now follows it, whose line it already holds.
    assert size == 2 * 7
    assert [(k.get("h") is not None, k.get("t")) for k in kept[size:]] == [
        (False, "Day 2: walk.\n"),
        (True, None),
        (True, None),
    ]
    store = read_prompts(tmp_path / "prompts.jsonl")
    for ref, messages in ((first, monday), (second, tuesday)):
        back = prompt_of(store, ref)
        assert [(m.role, m.text) for m in back] == [(m.role, m.text) for m in messages]
    assert log.keep(monday) == first and len(lines(tmp_path / "prompts.jsonl")) == len(kept)


def test_a_resumed_log_adds_nothing_it_already_holds(tmp_path: Path) -> None:
    prompt = chat("Answer in JSON.", IDENTITY)
    ref = PromptLog(tmp_path / "p.jsonl").keep(prompt)
    before = (tmp_path / "p.jsonl").read_bytes()
    assert PromptLog(tmp_path / "p.jsonl").keep(prompt) == ref
    assert (tmp_path / "p.jsonl").read_bytes() == before


def test_an_image_is_kept_as_its_digest_not_its_bytes(tmp_path: Path) -> None:
    image = ImagePart(b"\x89PNG fake bytes", "image/png")
    message = Message("user", (image, TextPart("What do you see?")))
    ref = PromptLog(tmp_path / "p.jsonl").keep([message])
    [back] = prompt_of(read_prompts(tmp_path / "p.jsonl"), ref)
    assert back.text == f"[image sha256:{image.sha256}]\n\nWhat do you see?"
    assert b"fake bytes" not in (tmp_path / "p.jsonl").read_bytes()


TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=60)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), TEXT), min_size=1),
        min_size=1,
        max_size=4,
    )
)
def test_every_prompt_comes_back_as_it_was_sent(
    tmp_path_factory: object, prompts: list[list[tuple[str, str]]]
) -> None:
    folder = tmp_path_factory.mktemp("log")  # type: ignore[attr-defined]
    log = PromptLog(folder / "p.jsonl")
    refs = [log.keep([Message(role, text) for role, text in p]) for p in prompts]  # type: ignore[arg-type]
    store = read_prompts(folder / "p.jsonl")
    for ref, sent in zip(refs, prompts, strict=True):
        assert [(m.role, m.text) for m in prompt_of(store, ref)] == sent
