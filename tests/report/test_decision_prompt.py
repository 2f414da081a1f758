"""The viewer's decision panel shows the prompt a decision's model call was sent, where the
run kept it."""

from __future__ import annotations

from pathlib import Path

from simulacra.llm import chat
from simulacra.llm.prompt_log import PromptLog, read_prompts
from simulacra.report.replay import build_replay
from simulacra.runlog import Event

START = {
    "scenario": "s",
    "world": {"kind": "embodied", "places": []},
    "agents": {"agent": {"name": "Agent"}},
}


def events(ref: str | None) -> list[Event]:
    return [
        Event(0, "2000-01-01T09:00:00", 0.0, "run", None, START),
        Event(1, "2000-01-01T09:00:00", 0.0, "world", None, {"step": 0, "agents": {}}),
        Event(2, "2000-01-01T09:00:00", 0.0, "llm.call", "agent", {"prompt": ref}),
        Event(
            3, "2000-01-01T09:00:00", 0.0, "decision", "agent",
            {"purpose": "act", "choice": "turn left", "raw": "I turn left.", "step": 1},
        ),
        Event(4, "2000-01-01T09:00:10", 0.0, "world", None, {"step": 1, "agents": {}}),
    ]  # fmt: skip


def test_a_decision_carries_the_prompt_its_call_was_sent(tmp_path: Path) -> None:
    ref = PromptLog(tmp_path / "p.jsonl").keep(chat("Act.", "You see a red armchair."))
    store = read_prompts(tmp_path / "p.jsonl")
    [step] = build_replay(events(ref), prompts=store).agents["agent"].decisions
    assert step.prompt == "[system]\nAct.\n\n[user]\nYou see a red armchair."
    # Without the kept prompts (or with none kept) the panel shows none.
    [bare] = build_replay(events(ref)).agents["agent"].decisions
    [unkept] = build_replay(events(None), prompts=store).agents["agent"].decisions
    assert bare.prompt == unkept.prompt == ""
