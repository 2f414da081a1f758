"""`simulacra lab ...` through the command line's one error boundary."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.lab.attempts import SIMULATE, build, claim
from typer.testing import CliRunner

from simulacra.api import open_run
from simulacra.cli import app
from simulacra.lab.library import SEED, Library
from simulacra.lab.sandbox import bwrap_path

runner = CliRunner()
sandboxed = pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")


@pytest.mark.parametrize("command", ["show", "lint"])
def test_show_and_lint_say_how_to_make_a_missing_library(tmp_path: Path, command: str) -> None:
    result = runner.invoke(app, ["lab", command, "--library", str(tmp_path / "none")])
    assert result.exit_code == 2, result.output
    assert "no library here" in result.output and "simulacra lab learn --library" in result.output
    assert not (tmp_path / "none").exists()


def test_show_lists_an_existing_library(tmp_path: Path) -> None:
    Library.create(tmp_path / "lib", SEED)
    result = runner.invoke(app, ["lab", "show", "--library", str(tmp_path / "lib")])
    assert result.exit_code == 0, result.output
    assert "create-grid-network" in result.output and "library: created" in result.output


def test_check_of_something_that_is_not_an_attempt_is_a_user_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lab", "check", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "not a folder" in result.output


def test_check_of_an_attempt_without_a_record_rejects_it(tmp_path: Path) -> None:
    (tmp_path / "attempt-1" / "outputs").mkdir(parents=True)
    result = runner.invoke(app, ["lab", "check", str(tmp_path / "attempt-1")])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert not data["passed"] and data["findings"][0]["check"] == "the record is intact"


def test_an_unknown_condition_and_a_bad_price_table_are_user_errors(tmp_path: Path) -> None:
    Library.create(tmp_path / "lib", SEED)
    base = ["lab", "bench", "v1", "--model", "scripted", "--library", str(tmp_path / "lib")]
    result = runner.invoke(app, [*base, "--condition", "fancy", "--runs", str(tmp_path)])
    assert result.exit_code == 2 and "--condition fancy: unknown" in result.output
    (tmp_path / "prices.yaml").write_text("gpt: {input: 1}\n")
    result = runner.invoke(app, [*base, "--prices", str(tmp_path / "prices.yaml")])
    assert result.exit_code == 2 and "gpt.output" in result.output
    (tmp_path / "prices.yaml").write_text("scripted: {input: 1, output: 2}\n")
    both = ["--prices", str(tmp_path / "prices.yaml"), "--set", "model.price.input=3"]
    result = runner.invoke(app, [*base, *both, "--runs", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "the price table (--prices) gives model.price" in " ".join(
        result.output.split()
    )
    assert not (tmp_path / "runs").exists()


def test_an_unknown_suite_is_a_user_error(tmp_path: Path) -> None:
    Library.create(tmp_path / "lib", SEED)
    args = ["lab", "bench", "v9", "--model", "scripted", "--library", str(tmp_path / "lib")]
    result = runner.invoke(app, [*args, "--runs", str(tmp_path)])
    assert result.exit_code == 2
    assert "no shipped suite by that name (freetext, v1, v2)" in result.output


@pytest.mark.parametrize("option", ["--inner-tries", "--outer-attempts", "--candidates"])
def test_the_protocol_s_bounds_are_options_and_are_validated(option: str) -> None:
    result = runner.invoke(app, ["lab", "solve", "task", "--output", "o", option, "11"])
    words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())  # the usage box wraps
    assert result.exit_code == 2 and "less than or equal to 10" in words


@pytest.mark.sumo
@sandboxed
def test_check_exits_0_on_a_real_attempt_and_1_on_a_rejected_one(tmp_path: Path) -> None:
    good = build(tmp_path / "good", "tripinfo-run", [SIMULATE], claims=[
        claim("trips", 300, "outputs/tripinfo.xml", "xml_count", element="tripinfo")])  # fmt: skip
    result = runner.invoke(app, ["lab", "check", str(good)])
    assert result.exit_code == 0, result.output
    off = build(tmp_path / "off", "tripinfo-run", [SIMULATE], claims=[
        claim("trips", 302, "outputs/tripinfo.xml", "xml_count", element="tripinfo")])  # fmt: skip
    result = runner.invoke(app, ["lab", "check", str(off), "--no-reproduce"])
    assert result.exit_code == 1 and not json.loads(result.output)["passed"]


def _solve(tmp_path: Path, *extra: str) -> str:
    args = ["lab", "solve", "Build a 3 x 3 grid with 200 m blocks and traffic lights.",
            "--output", "outputs/grid.net.xml", "--set", "grid=3", "--set", "length=200",
            "--set", "lanes=1", "--set", "lights=yes", "--category", "signals", "--tier", "1",
            "--model", "scripted", "--library", str(tmp_path / "lib"),
            "--runs", str(tmp_path / "runs"), *extra]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.sumo
@sandboxed
def test_solve_in_normal_mode_learns_from_a_user_task_and_test_mode_does_not(
    tmp_path: Path,
) -> None:
    library = Library.create(tmp_path / "lib", SEED)
    digest = library.digest()
    assert "accepted after 1 attempt(s)" in _solve(tmp_path)
    assert library.digest() == digest
    output = _solve(tmp_path, "--mode", "normal")
    assert "memory changed: tool-netgenerate-grid-lights-yes" in output
    assert library.digest() != digest
    assert len(list((library.root / "episodes").glob("*-user-task/attempt-1"))) == 1
    assert library.history(1)[0][1].startswith("memory: new page tool-netgenerate")


@pytest.mark.sumo
@sandboxed
def test_one_outer_attempt_and_one_inner_try_bound_an_unsolvable_task(tmp_path: Path) -> None:
    Library.create(tmp_path / "lib", SEED)
    args = ["lab", "solve", "Draw a bicycle.", "--output", "outputs/bicycle.svg", "--model",
            "scripted", "--library", str(tmp_path / "lib"), "--runs", str(tmp_path / "runs"),
            "--outer-attempts", "1", "--inner-tries", "1"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "rejected after 1 attempt(s)" in result.output
    (episode,) = (tmp_path / "runs").glob("lab-solve-*/episodes/*")
    assert [p.name for p in episode.glob("attempt-*")] == ["attempt-1"]
    # Every prompt the lab sent is kept in its run folder and read back with its call.
    calls = open_run(episode.parents[1]).calls(prompts=True)
    assert len(calls) > 0 and calls["prompt_ref"].notna().all()
    for prompt in calls["prompt"]:
        assert prompt[1]["role"] == "user" and "Draw a bicycle." in prompt[1]["text"]
