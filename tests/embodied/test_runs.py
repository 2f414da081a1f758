"""Whole embodied runs through `experiments.run`: the oracle reaches every suite target
with SPL of at least 0.8 and never a path shorter than SPL's shortest, the seeker succeeds on
the module task from the source's start pose, the caption agent drives a scripted model, and
scenarios are checked before they run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from simulacra.experiments import ScenarioError, load_scenario, run
from simulacra.experiments.models import load_run_model
from simulacra.llm import RawReply, Request, ScriptedModel
from simulacra.mind.embodied import PURPOSE_CAPTION
from simulacra.worlds.embodied import soft_spl, spl
from simulacra.worlds.embodied.shipped import SHIPPED

SMALL = ["world.camera.width=96", "world.camera.height=72", "output.report=false"]


def _run(tmp_path: Path, path: str, *sets: str) -> tuple[Path, dict[str, Any]]:
    scenario = load_scenario(path, [*SMALL, f"output.root={tmp_path}", *sets])
    run_dir = run(scenario, progress=False)
    metrics = json.loads((run_dir.path / "metrics.json").read_text())
    return run_dir.path, metrics["embodied"]


def _events(path: Path, kind: str) -> list[dict[str, Any]]:
    lines = (path / "events.jsonl").read_text().splitlines()
    return [e["data"] for e in map(json.loads, lines) if e["kind"] == kind]


@pytest.mark.parametrize("task", sorted(SHIPPED["flat"].tasks))
def test_the_oracle_reaches_every_suite_target_efficiently(
    tmp_path: Path, renders: None, task: str
) -> None:
    _, measures = _run(
        tmp_path, "scenarios/embodied-suite.yaml", f"world.task={task}", "agents.mind=oracle"
    )
    episode = measures["episodes"]["agent"]
    assert episode["success"], episode
    # Its route runs cell centre to cell centre to a goal it can see past every obstacle on
    # the floor plan: up to a fifth longer than the shortest walk (docs/embodied.md).
    assert episode["spl"] >= 0.8
    assert episode["collisions"] == 0
    # SPL's shortest path is one no walk beats, the oracle's included.
    assert episode["path_m"] >= episode["shortest_m"]


def test_the_seeker_finds_the_logo_from_the_source_start_pose(
    tmp_path: Path, renders: None
) -> None:
    path, measures = _run(
        tmp_path, "scenarios/embodied.yaml", "agents.mind=seeker", "world.camera.width=512",
        "world.camera.height=384",
    )  # fmt: skip
    starts = _events(path, "run")[0]["world"]["starts"]["agent"]
    assert (starts["x"], starts["y"], starts["yaw"], starts["pitch"]) == (4.0, 20.1, 180.0, 0.0)
    episode = measures["episodes"]["agent"]
    assert episode["success"] and episode["steps"] <= 10
    assert episode["path_m"] >= episode["shortest_m"] and episode["spl"] < 1.0
    assert _events(path, "action")[-1]["command"]["stay"] is True


def test_the_caption_agent_reads_its_view_in_words(tmp_path: Path, renders: None) -> None:
    path, measures = _run(
        tmp_path, "scenarios/embodied-suite.yaml", "world.task=armchair_near",
        "agents.mind=caption", "model.spec=scripted",
    )  # fmt: skip
    decisions = _events(path, "decision")
    assert "the red armchair" in decisions[0]["caption"]
    assert decisions[0]["raw"].startswith("I see the red armchair")
    assert measures["episodes"]["agent"]["success"]
    calls = _events(path, "llm.call")
    assert {c["purpose"] for c in calls} == {"embodied.decide.caption"}


class _Slow:
    """A backend that takes 20 ms a call: a model time the episode's 3-decimal figure shows."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name

    async def generate(self, request: Request, schema: Any, seed: int) -> RawReply:
        await asyncio.sleep(0.02)
        reply: RawReply = await self.inner.generate(request, schema, seed)
        return reply


def test_an_episode_s_model_time_is_read_from_its_calls(tmp_path: Path, renders: None) -> None:
    scenario = load_scenario(
        "scenarios/embodied-suite.yaml",
        [*SMALL, f"output.root={tmp_path}", "world.task=armchair_near", "agents.mind=caption",
         "model.spec=scripted", "clock.ticks=2"],
    )  # fmt: skip
    model = load_run_model(scenario)  # scripted, with the world's responders
    model.backend = _Slow(model.backend)
    run_dir = run(scenario, model=model, progress=False)
    calls = _events(run_dir.path, "llm.call")
    model_time = round(sum(c["latency_s"] for c in calls), 3)
    metrics = json.loads((run_dir.path / "metrics.json").read_text())
    assert model_time >= 0.02 * len(calls) > 0
    assert metrics["embodied"]["episodes"]["agent"]["latency_s"] == model_time


def test_replies_cut_at_the_budget_are_counted_apart_from_unreadable_ones(
    tmp_path: Path, renders: None
) -> None:
    scenario = load_scenario(
        "scenarios/embodied.yaml",
        [*SMALL, f"output.root={tmp_path}", "model.spec=scripted", "clock.ticks=3",
         "agents.options.caption.max_tokens=40"],
    )  # fmt: skip
    model = load_run_model(scenario)
    said = iter(
        [
            "The module is long and bright, with racks on both sides " * 4,  # cut off: 40 tokens
            "Hmm.",  # short and no movement: unreadable
            "I see the logo far ahead. move forward 2 m",
        ]
    )
    assert isinstance(model, ScriptedModel)
    model.on(PURPOSE_CAPTION, lambda request: next(said))
    run_dir = run(scenario, model=model, progress=False)
    decisions = _events(run_dir.path, "decision")
    assert [d["cut"] for d in decisions] == [True, False, False]
    episode = json.loads((run_dir.path / "metrics.json").read_text())["embodied"]["episodes"]
    assert (episode["agent"]["cut"], episode["agent"]["unreadable"]) == (1, 1)
    # The shipped budgets leave room for a description before the movement sentence.
    shipped = load_scenario("scenarios/embodied.yaml")
    assert shipped.model.max_tokens is None
    assert shipped.agents.options == {"caption": {"max_tokens": 256}, "vlm": {"max_tokens": 512}}


def test_a_decision_record_keeps_reply_command_notes_poses_and_effects(
    tmp_path: Path, renders: None
) -> None:
    path, measures = _run(
        tmp_path, "scenarios/embodied.yaml", "agents.mind=random", "clock.ticks=6",
        "world.save_views=true",
    )  # fmt: skip
    decisions, actions = _events(path, "decision"), _events(path, "action")
    assert len(decisions) == len(actions) == 6
    for decision, action in zip(decisions, actions, strict=True):
        assert decision["step"] == action["step"]
        assert (path / decision["image"]).is_file()
        assert {"command", "notes", "pose_before", "pose_after", "clamps", "boundary",
                "outcome"} <= set(action)  # fmt: skip
        assert "latency_s" in decision
    episode = measures["episodes"]["agent"]
    assert episode["steps"] == 6
    assert episode["collisions"] == sum(a["boundary"] == "collision" for a in actions)


def test_several_agents_share_a_scene_and_talk(tmp_path: Path, renders: None) -> None:
    path, measures = _run(
        tmp_path, "scenarios/embodied.yaml", "agents.count=2", "agents.mind=caption",
        "model.spec=scripted", "world.talk_radius_m=3", "clock.ticks=2",
    )  # fmt: skip
    assert set(measures["episodes"]) == {"agent_1", "agent_2"}
    starts = _events(path, "run")[0]["world"]["starts"]
    assert starts["agent_1"] != starts["agent_2"]
    messages = _events(path, "message")
    assert messages and all(m["to"] for m in messages)


def test_a_seed_fixes_a_run(tmp_path: Path, renders: None) -> None:
    a, _ = _run(tmp_path / "a", "scenarios/embodied.yaml", "agents.mind=random", "clock.ticks=4")
    b, _ = _run(tmp_path / "b", "scenarios/embodied.yaml", "agents.mind=random", "clock.ticks=4")
    assert _events(a, "action") == _events(b, "action")


def test_spl_and_soft_spl() -> None:
    assert spl(True, 4.0, 5.0) == pytest.approx(0.8)
    assert spl(True, 4.0, 3.9) == 1.0
    assert spl(False, 4.0, 4.0) == 0.0
    assert soft_spl(4.0, 1.0, 5.0) == pytest.approx(0.75 * 0.8)
    assert soft_spl(4.0, 6.0, 5.0) == 0.0


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (["agents.mind=vlm"], "scenario.agents.mind: vlm sends images"),
        (["world.task=moon"], "scenario.world.task: no task 'moon'"),
        (["world.scene=kitchen.obj"], "scenario.world.scene: 'kitchen.obj' is neither"),
        (["agents.mind=telepath"], "telepath"),
    ],
)
def test_faulty_scenarios_are_refused_naming_the_field(sets: list[str], message: str) -> None:
    with pytest.raises(ScenarioError, match=message.replace(".", r"\.").replace("'", ".")):
        load_scenario("scenarios/embodied.yaml", sets)


def test_both_shipped_scenarios_are_valid() -> None:
    assert load_scenario("scenarios/embodied.yaml").world.kind == "embodied"
    suite = load_scenario("scenarios/embodied-suite.yaml")
    assert len(suite.sweep.vary["world.task"]) >= 10
