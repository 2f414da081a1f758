"""One error boundary: every expected failure prints `error: ` with what went wrong, where
(file and line for YAML, the field path for a scenario) and how to fix it, and exits 2. A
traceback only with --debug; a bug is one line and exit 1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra import api, cli
from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.runlog import RunDir

from .conftest import ELFAROL, SCENARIOS, run_dirs, sets, simulacra, small_elfarol

runner = CliRunner()


def fails(*args: str) -> str:
    """The output of a command that must fail as expected: exit 2, `error: `, no traceback."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: "), result.output
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("finished")
    return run(load_scenario(ELFAROL, small_elfarol(root, "output.report=false")), progress=False)


def copy_run(run_dir: RunDir, to: Path) -> Path:
    return Path(shutil.copytree(run_dir.path, to / run_dir.path.name))


# --- YAML syntax: the file and the line --------------------------------------------------


def test_a_yaml_syntax_error_in_a_scenario_names_the_file_and_line(in_tmp: Path) -> None:
    (in_tmp / "bad.yaml").write_text("name: bad\nclock: {ticks: 1\nworld: [\n")
    said = fails("run", "bad.yaml")
    assert "bad.yaml: YAML syntax error at line 3, column 6 ('world: [')" in said
    assert "fix the YAML there" in said


def test_a_yaml_syntax_error_in_a_personas_file_names_that_file(in_tmp: Path) -> None:
    shutil.copytree(SCENARIOS / "town", in_tmp / "town")
    shutil.copy(SCENARIOS / "town.yaml", in_tmp)
    (in_tmp / "town" / "personas.yaml").write_text("- id: a\n  name: [unclosed\n")
    said = fails("scenario", "check", "town.yaml")
    assert "town.yaml is not a valid scenario" in said
    assert "scenario.agents.personas: town/personas.yaml: YAML syntax error at line 3" in said


@pytest.mark.parametrize("value", ["[1", "{a: 1", "2024-02-30"])
def test_a_set_value_that_is_not_yaml_is_named(value: str) -> None:
    said = fails("scenario", "check", str(SCENARIOS / "town.yaml"), "--set", f"clock.tick={value}")
    assert f'--set "clock.tick={value}": the value:' in said


# --- the output folder ----------------------------------------------------------------------


def test_an_output_folder_that_is_a_file_is_refused(in_tmp: Path) -> None:
    (in_tmp / "afile").write_text("")
    said = fails("run", str(ELFAROL), *sets(small_elfarol(in_tmp / "afile" / "runs")))
    assert "afile is a file, not a folder" in said and "output.root" in said


def test_an_output_folder_with_a_name_too_long_is_refused(in_tmp: Path) -> None:
    said = fails("run", str(ELFAROL), *sets(small_elfarol(in_tmp / ("a" * 300))))
    assert "is 300 bytes long; a file system takes at most 255" in said
    assert list(in_tmp.iterdir()) == []


def test_an_output_folder_that_cannot_be_written_is_refused(in_tmp: Path) -> None:
    # A folder that refuses new entries: made read-only, or, for root (whom permissions do
    # not stop), sysfs, where no one may make a folder.
    if os.geteuid() == 0:
        folder = Path("/sys/fs")
    else:
        folder = in_tmp / "readonly"
        folder.mkdir(mode=0o555)
    said = fails("run", str(ELFAROL), *sets(small_elfarol(folder / "runs")))
    assert f"cannot create a folder in {folder}" in said and "output.root" in said
    assert not (folder / "runs").exists()


# --- worlds and models ----------------------------------------------------------------------


def test_an_unknown_commute_profile_names_the_known_ones() -> None:
    said = fails(
        "scenario", "check", str(SCENARIOS / "commute.yaml"), "--set", "agents.mix={nobody: 3}"
    )
    assert 'scenario.agents.mix.nobody: unknown profile "nobody"; known profiles: student' in said


def test_the_sumo_executor_without_sumo_is_refused_before_anything_runs(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SUMO made absent from this process: its modules cannot be imported.
    for module in ("sumo", "libsumo"):
        monkeypatch.setitem(sys.modules, module, None)
    said = fails(
        "run",
        str(SCENARIOS / "commute.yaml"),
        "--model",
        "scripted",
        "--set",
        "world.executor=sumo",
    )
    assert "scenario.world.executor: sumo needs Eclipse SUMO" in said
    assert "pip install 'simulacra[sumo]'" in said and "executor: builtin" in said
    assert list(in_tmp.iterdir()) == []


def test_an_unknown_embedder_is_named_with_the_known_ones() -> None:
    said = fails("models", "check", "scripted", "--embedder", "nope")
    assert "unknown embedder 'nope'; expected one of minilm, model2vec, hashing" in said


def test_a_model_key_that_is_not_set_is_named_and_no_run_directory_is_made(in_tmp: Path) -> None:
    spec = "openai:http://127.0.0.1:9/v1?model=m&key_env=SIMULACRA_TEST_NO_SUCH_KEY"
    said = fails("run", str(ELFAROL), *sets(small_elfarol(in_tmp / "runs")), "--model", spec)
    assert "export SIMULACRA_TEST_NO_SUCH_KEY=<your key>" in said
    assert list(in_tmp.iterdir()) == []


# --- run directories ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["inspect", "view", "frames", "interview"])
def test_a_run_whose_log_is_missing_says_so(command: str, finished: RunDir, tmp_path: Path) -> None:
    copy = copy_run(finished, tmp_path)
    (copy / "events.jsonl").unlink()
    extra = ["0", "hello"] if command == "interview" else []
    said = fails(command, str(copy), *extra)
    if command == "interview":
        assert "keep no memory stream" in said
    else:
        assert f"{copy / 'events.jsonl'}: the event log is missing" in said


@pytest.mark.parametrize("command", ["inspect", "view", "frames"])
def test_a_run_whose_log_is_damaged_names_the_line(
    command: str, finished: RunDir, tmp_path: Path
) -> None:
    copy = copy_run(finished, tmp_path)
    lines = (copy / "events.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = b'{"seq": 1, "kind\x01": garbage\n'
    (copy / "events.jsonl").write_bytes(b"".join(lines))
    said = fails(command, str(copy))
    assert f"{copy / 'events.jsonl'}, line 2: not an event" in said
    assert "the log is damaged" in said


def test_a_damaged_run_json_and_a_folder_that_is_no_run_are_named(
    finished: RunDir, tmp_path: Path
) -> None:
    copy = copy_run(finished, tmp_path)
    (copy / "run.json").write_text("{not json")
    assert f"{copy / 'run.json'}: unreadable" in fails("inspect", str(copy))
    assert "not a run directory (no run.json)" in fails("inspect", str(tmp_path))


def test_view_refuses_a_port_that_does_not_exist(finished: RunDir) -> None:
    assert "port 70000 does not exist" in fails("view", str(finished.path), "--port", "70000")


def test_resume_takes_no_overrides(finished: RunDir) -> None:
    said = fails("run", "--resume", str(finished.path), "--set", "seed=3")
    assert "do not apply to --resume" in said
    assert "has already completed" in fails("run", "--resume", str(finished.path))


# --- tracebacks: only with --debug; a bug is one line -------------------------------------


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    quiet = simulacra("inspect", str(tmp_path))
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr
    loud = simulacra("--debug", "inspect", str(tmp_path))
    assert loud.returncode != 0 and "Traceback" in loud.stderr
    assert "RunDirError" in loud.stderr


def test_a_bug_is_one_line_with_exit_one(finished: RunDir, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(cli, "compare_runs", broken)
    result = runner.invoke(app, ["diff", str(finished.path), str(finished.path)])
    assert result.exit_code == 1
    assert result.output.startswith("error: internal error: ZeroDivisionError: division by zero")
    assert "simulacra --debug" in result.output and "Traceback" not in result.output


def test_ctrl_c_marks_the_run_interrupted_and_exits_130(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    overrides = small_elfarol(root, "agents.count=50", "clock.ticks=500")  # half a minute
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from simulacra.cli import main; main()",
            "run",
            str(ELFAROL),
            *sets(overrides),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any((p / "events.jsonl").exists() for p in run_dirs(root)):
        assert child.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(child.pid, signal.SIGINT)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 130, stderr
    assert stderr.startswith("interrupted") and "Traceback" not in stderr
    (interrupted,) = [RunDir(p) for p in run_dirs(root)]
    assert interrupted.info()["status"] == "interrupted"
    # It says where the run is and how to go on; once resumed to the end, the stop is over.
    said = " ".join(stderr.split())
    assert f"run {interrupted.path} stopped" in said
    assert f"simulacra run --resume {interrupted.path}" in said
    assert "KeyboardInterrupt" in interrupted.info()["error"]
    resumed = runner.invoke(app, ["run", "--resume", str(interrupted.path)])
    assert resumed.exit_code == 0, resumed.output
    info = interrupted.info()
    assert info["status"] == "completed" and "error" not in info and info["resumed"] == 1
    shown = runner.invoke(app, ["inspect", str(interrupted.path)]).output
    assert "completed" in shown and "KeyboardInterrupt" not in shown


def start_sweep(overrides: list[str]) -> subprocess.Popen[str]:
    """`simulacra sweep` of El Farol on two workers, in a process group of its own, as a
    terminal starts it."""
    command = [sys.executable, "-c", "from simulacra.cli import main; main()", "sweep"]
    return subprocess.Popen(
        [*command, str(ELFAROL), *sets(overrides), "--workers", "2"],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.mark.parametrize("reached", ["the whole group", "the sweep alone"])
def test_ctrl_c_stops_a_sweep_s_runs_and_says_how_to_resume_it(
    reached: str, tmp_path: Path
) -> None:
    root = tmp_path / "runs"
    overrides = small_elfarol(root, "agents.count=50", "clock.ticks=400", "sweep.replicates=3")
    child = start_sweep(overrides)
    deadline = time.monotonic() + 120
    while not list(root.glob("*/*/events.jsonl")):
        assert child.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    if reached == "the whole group":  # a terminal's Ctrl+C: the sweep, its pool and workers
        os.killpg(child.pid, signal.SIGINT)
    else:  # a notebook's interrupt reaches its kernel alone
        os.kill(child.pid, signal.SIGINT)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 130, stderr
    (folder,) = run_dirs(root)
    said = " ".join(stderr.split())
    assert f"sweep {folder} stopped after" in said and "Traceback" not in said
    assert f"simulacra sweep --resume {folder}" in said
    assert api.open_sweep(folder).info["status"] == "interrupted"
    statuses = [RunDir(p).info()["status"] for p in run_dirs(folder) if (p / "run.json").exists()]
    # Every run that started was stopped, and none started after.
    assert statuses and set(statuses) == {"interrupted"}, statuses


def test_ctrl_c_while_one_worker_is_idle_still_lets_the_other_mark_its_run(
    tmp_path: Path,
) -> None:
    # A short run and a long one: when Ctrl+C reaches the group, one worker has finished and
    # waits for work while the other is in its run. The idle worker must not die of it, since
    # a pool whose worker dies terminates the others, and the long run would be left running.
    root = tmp_path / "runs"
    overrides = small_elfarol(root, "agents.count=50", "sweep.replicates=1")
    overrides += ["sweep.vary={clock.ticks: [2, 500]}", "sweep.variants={}"]
    child = start_sweep(overrides)

    def statuses() -> list[str]:
        runs = [p / "run.json" for folder in run_dirs(root) for p in run_dirs(folder)]
        return sorted(json.loads(p.read_text())["status"] for p in runs if p.exists())

    deadline = time.monotonic() + 120
    while statuses() != ["completed", "running"]:
        assert child.poll() is None and time.monotonic() < deadline, statuses()
        time.sleep(0.05)
    time.sleep(1)
    os.killpg(child.pid, signal.SIGINT)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 130, stderr
    assert statuses() == ["completed", "interrupted"], stderr
    assert "Traceback" not in stderr, stderr
