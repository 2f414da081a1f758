"""`simulacra evaluate` on a small scripted run: every agent under every condition from the
same memories, answers with their memory ids and fact checks, blinded rankings, TrueSkill,
acquaintance, diffusion, coordination; and a correction that cascades into later answers."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.embed import HashingEmbedder
from simulacra.experiments.evaluate import merge_ratings
from simulacra.experiments.evaluate.social import coordination
from simulacra.experiments.questions import Fact
from simulacra.memory import MemoryStream
from simulacra.report import build_outputs, build_replay
from simulacra.runlog import Event, RunDir, read_events

from .conftest import CANCELLED

CONDITIONS = [
    "full",
    "no_reflection",
    "no_reflection_no_planning",
    "no_observation_reflection_planning",
]


def test_every_agent_answers_every_item_under_every_condition(evaluated: dict[str, Any]) -> None:
    assert evaluated["conditions"] == CONDITIONS
    items = evaluated["items"]
    assert len(items) == 3 * 5  # three agents, one question of each of the five categories
    assert {i["category"] for i in items} == {
        "self_knowledge",
        "memory",
        "plans",
        "reactions",
        "reflections",
    }
    assert all("{" not in i["question"] for i in items)  # placeholders filled
    pairs = {(a["item"], a["condition"]) for a in evaluated["answers"]}
    assert pairs == {(i["id"], c) for i in items for c in CONDITIONS}
    for answer in evaluated["answers"]:
        agent = answer["item"].split("|")[0]
        assert all(m.startswith(f"{agent}-") for m in answer["memory_ids"])
        if answer["condition"] == "no_observation_reflection_planning":
            assert answer["memory_ids"] == []
    assert evaluated["calls"]["answer:full"] == 15


def test_answers_are_fact_checked_and_the_embellishment_rate_is_their_share(
    evaluated: dict[str, Any],
) -> None:
    for condition, tally in evaluated["embellishment"].items():
        mine = [a for a in evaluated["answers"] if a["condition"] == condition]
        flagged = [a for a in mine if a["verdict"] == "embellished"]
        assert tally["checked"] == len(mine) == 15
        assert tally["rate"] == round(len(flagged) / 15, 4)


def test_each_item_is_ranked_once_by_the_judge_and_rated_with_trueskill(
    evaluated: dict[str, Any],
) -> None:
    rankings = evaluated["rankings"]
    assert sorted(r["item"] for r in rankings) == sorted(i["id"] for i in evaluated["items"])
    assert all(sorted(r["order"]) == sorted(CONDITIONS) for r in rankings)
    rated = evaluated["ratings"]["judge"]
    assert [r["condition"] for r in rated] == CONDITIONS
    assert all(r["rankings"] == 15 and r["sigma"] < 25 / 3 for r in rated)
    assert evaluated["published"]["trueskill_mu"]["full"] == 29.9


def test_acquaintance_is_asked_of_every_pair_at_each_time(evaluated: dict[str, Any]) -> None:
    times = [r["t"] for r in evaluated["acquaintance"]]
    assert times == ["2024-02-14T07:00:00", "2024-02-14T09:50:00"]
    for row in evaluated["acquaintance"]:
        assert row["directed_density"] == round(len(row["edges"]) / 6, 4)
        assert row["density"] == round(len(row["pairs"]) / 3, 4)  # pairs who both say so
    # Marta's persona names Theo and Priya: she knows them from the start.
    start = {tuple(e) for e in evaluated["acquaintance"][0]["edges"]}
    assert {("marta_okafor", "theo_brandt"), ("marta_okafor", "priya_nair")} <= start


def test_diffusion_and_coordination_follow_the_party_and_its_cancellation(
    evaluated: dict[str, Any], town_run: RunDir
) -> None:
    party = evaluated["diffusion"]["party"]
    # The curve starts when Marta is given the party (07:30), she alone aware, as the
    # source's starts at its host; then the evaluation's times after it.
    assert [p["t"] for p in party] == ["2024-02-14T07:30:00", "2024-02-14T09:50:00"]
    assert party[0]["agents"] == ["marta_okafor"] and party[0]["owner"] == "marta_okafor"
    assert evaluated["planted"]["party"]["owner"] == "marta_okafor"
    assert evaluated["diffusion_method"].startswith("keywords")
    told = evaluated["coordination"]["party"]["rows"]
    assert told and told[0]["agent"] == "theo_brandt" and told[0]["told_by"] == "marta_okafor"
    assert "marta_okafor" not in {r["agent"] for r in told}  # the host is no invitee
    assert told[0]["told_at"] == "2024-02-14T08:00:00"
    # Asked after the correction, whoever knows of the party knows it is called off.
    for agent in party[-1]["agents"]:
        assert "called off" in party[-1]["answers"][agent]


def test_the_scripted_host_knows_of_her_own_party(evaluated: dict[str, Any]) -> None:
    # Asked at 07:30, Marta answers from her memory of the thought (not the fallback), and
    # the judge's stand-in finds the party in her answer: she is counted by what she said.
    first = evaluated["diffusion"]["party"][0]
    assert "party" in first["answers"]["marta_okafor"].lower()
    assert "not sure how to answer" not in first["answers"]["marta_okafor"]
    # Her thought is an inner thought, not something she saw or heard: she is aware as the
    # fact's owner, not by what her memory witnessed.
    assert first["verdicts"]["marta_okafor"] == {"by_words": True, "judged": True, "heard": False}
    assert first["agents"] == ["marta_okafor"]


def test_a_correction_invalidates_the_party_and_the_viewer_shows_it(town_run: RunDir) -> None:
    dropped = [e for e in read_events(town_run.events_path, {"memory.invalidate"})]
    assert dropped and all(e.t == "2024-02-14T09:00:00" for e in dropped)
    assert {e.data["reason"] for e in dropped} == {f"corrected: {CANCELLED}"}
    marta = MemoryStream("marta_okafor", HashingEmbedder(), town_run.path / "memory.sqlite")
    valid = [r.text for r in marta.recent(1000)]
    marta.close()
    assert CANCELLED in valid and not any("host a Valentine" in t for t in valid)
    replay = build_replay(read_events(town_run.events_path))
    gone = [m for m in replay.agents["marta_okafor"].memories if m.invalid_frame is not None]
    assert gone and all(m.invalid_reason.startswith(("corrected", "rests on")) for m in gone)
    assert "m.invalid_frame <= state.frame" in (town_run.path / "viewer.html").read_text()


def test_the_report_has_an_evaluation_section_and_people_can_rank(
    evaluated: dict[str, Any], town_run: RunDir, tmp_path: Any
) -> None:
    build_outputs(town_run.path)
    report = (town_run.path / "report.html").read_text()
    assert 'id="evaluation"' in report and "source&#x27;s mu" in report
    key = {v: k for k, v in evaluated["rating_key"].items()}
    first = evaluated["items"][0]["id"]
    order = [key[f"{first}\t{c}"] for c in reversed(CONDITIONS)]
    saved = tmp_path / "ratings.json"
    saved.write_text(json.dumps({"rater": "ann", "rankings": [{"order": order}]}))
    merged = json.loads(merge_ratings(town_run.path, saved).read_text())
    assert merged["people"] == [
        {
            "item": first,
            "rater": "person:ann",
            "order": list(reversed(CONDITIONS)),
            "fallback": False,
        }
    ]
    assert set(merged["ratings"]) == {"judge", "people", "all"}
    assert merged["agreement"]["items"] == 1 and merged["agreement"]["pairs"] == 6
    saved.write_text(json.dumps({"rankings": [{"order": ["feedbeef00"]}]}))
    result = CliRunner().invoke(app, ["evaluate", str(town_run.path), "--ratings", str(saved)])
    assert result.exit_code == 2 and "not on this evaluation's rating page" in result.output


def test_the_host_told_her_own_news_back_is_no_invitee_of_hers() -> None:
    said = "Marta told me: a Valentine's party at Hobbs Cafe at 17:00."
    back = Event(
        1,
        "2024-02-14T09:00:00",
        0.0,
        "conversation",
        data={
            "participants": ["priya_nair", "marta_okafor"],
            "turns": [{"speaker": "priya_nair", "text": said}],
        },
    )
    fact = Fact(question="Any party?", aware_when=[["party"], ["hobbs"]], attendance=True)
    rows = coordination([back], fact, ["marta_okafor"], owner="marta_okafor")
    assert rows == []
    (row,) = coordination([back], fact, ["marta_okafor"])  # without an owner she would count
    assert row["agent"] == "marta_okafor" and row["came"]
