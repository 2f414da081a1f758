"""A sweep survives what kills its runs: on a real local Ray head, a run whose worker is killed
mid-way is retried and resumes from its checkpoint; a sweep killed as a whole is finished by
`simulacra sweep --resume` without redoing the runs that had completed.

The runs ask a fault server on 127.0.0.1 that answers after 0.15 s (its answers fit no
commuter prompt, so every call ends in its counted fallback): slow enough to be caught mid-way.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from simulacra.experiments.sweep import run_sweep
from simulacra.llm.fault_server import FaultServer
from simulacra.runlog import RunDir, read_events

from .conftest import SCENARIO

RAY = importlib.util.find_spec("ray") is not None
T = TypeVar("T")
# The installed command: its interpreter is the one running the tests.
SIMULACRA = str(Path(sys.executable).with_name("simulacra"))
LATENCY_S = 0.15


def slow_sweep(url: str, replicates: int) -> list[str]:
    """Two variants x `replicates` of a small commute, each run about 3 s long with a
    checkpoint every second day."""
    return [
        f"model.spec=openai:{url}?model=fake",
        "model.attempts=1",
        "model.max_fallback_rate=1",
        "model.timeout_s=10",
        "memory.embedder=hashing",
        "agents.mix={student: 1, administrative_worker: 1, elderly_resident: 1, factory_worker: 1}",
        "clock.ticks=8",
        "world.city.taxi_strikes=[{days: [5, 6], out_of_service: 0.8}]",
        "clock.checkpoint_every=2",
        "sweep.variants={}",
        "sweep.reference=null",
        "sweep.vary={ablation: [B1, Full]}",
        f"sweep.replicates={replicates}",
        "output.report=false",
    ]


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer("ok", latency_s=LATENCY_S) as started:
        yield started


def runs(sweep_dir: Path) -> dict[str, RunDir]:
    found = {}
    for path in sorted(sweep_dir.glob("*/run.json")):
        run_dir = RunDir(path.parent)
        found[run_dir.info()["job"]] = run_dir
    return found


def wait_for(check: Callable[[], T | None], timeout_s: float = 60.0) -> T:
    """The first truthy value `check` returns, polled every 50 ms."""
    deadline = time.monotonic() + timeout_s
    while not (found := check()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s:g} s in vain")
        time.sleep(0.05)
    return found


def midway(root: Path) -> RunDir | None:
    """A run that has saved a checkpoint and is still running."""
    for path in root.glob("*-sweep-*/*/checkpoint/state-*.json"):
        run_dir = RunDir(path.parents[1])
        if run_dir.info()["status"] == "running":
            return run_dir
    return None


@pytest.mark.skipif(not RAY, reason="Ray is not installed (the ray extra; make test installs it)")
@pytest.mark.slow
def test_on_ray_a_run_whose_worker_is_killed_is_retried_and_resumes(
    tmp_path: Path, server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        outcome: dict[str, object] = {}

        def sweep() -> None:
            try:
                outcome["dir"] = run_sweep(
                    SCENARIO, slow_sweep(server.url, 1), executor="ray", root=tmp_path,
                    progress=False,
                )  # fmt: skip
            except Exception as exc:  # reported below, in the test's own thread
                outcome["error"] = exc

        driver = threading.Thread(target=sweep)
        driver.start()
        victim = wait_for(lambda: midway(tmp_path))
        killed_pid = int(victim.info()["pid"])
        assert killed_pid != os.getpid()  # a Ray worker runs it, not this process
        os.kill(killed_pid, signal.SIGKILL)
        driver.join(timeout=120)
    finally:
        ray.shutdown()
    assert "error" not in outcome, outcome.get("error")
    sweep_dir = outcome["dir"]
    assert isinstance(sweep_dir, Path)
    with (sweep_dir / "results.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 2
    info = victim.info()
    assert info["status"] == "completed"
    assert info["resumed"] == 1 and info["pid"] != killed_pid
    assert len(runs(sweep_dir)) == 2  # resumed in place, not run again beside the dead one
    kinds = [e.kind for e in read_events(victim.events_path, {"run", "run.end", "world"})]
    assert kinds.count("run") == 1 and kinds[-1] == "run.end"
    assert kinds.count("world") == 9  # step 0 and eight days, each once after the resume


@pytest.mark.slow
def test_sweep_resume_finishes_a_killed_sweep_without_redoing_finished_runs(
    tmp_path: Path, server: FaultServer
) -> None:
    sets = [a for s in slow_sweep(server.url, 2) for a in ("--set", s)]
    sweep = subprocess.Popen(
        [SIMULACRA, "sweep", str(SCENARIO), *sets, "--workers", "1"],
        cwd=tmp_path,  # the runs go to ./runs
        start_new_session=True,  # its own process group: the sweep and its pool worker
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def two_done() -> bool:
            done = [r for d in tmp_path.glob("runs/*-sweep-*") for r in runs(d).values()]
            return sum(r.info()["status"] == "completed" for r in done) >= 2

        wait_for(two_done)
    finally:
        os.killpg(sweep.pid, signal.SIGKILL)
        sweep.wait()
    (sweep_dir,) = tmp_path.glob("runs/*-sweep-*")
    before = {job: r.info() for job, r in runs(sweep_dir).items()}
    finished = {job for job, info in before.items() if info["status"] == "completed"}
    assert 2 <= len(finished) < 4
    resumed = subprocess.run(
        [SIMULACRA, "sweep", "--resume", str(sweep_dir)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    after = {job: r.info() for job, r in runs(sweep_dir).items()}
    assert len(after) == 4 and all(i["status"] == "completed" for i in after.values())
    for job in finished:  # untouched: the same run, ended at the same moment
        assert after[job]["ended"] == before[job]["ended"]
    sweep_info = json.loads((sweep_dir / "sweep.json").read_text())
    assert sweep_info["status"] == "completed" and sweep_info["resumed"] == 1
    with (sweep_dir / "results.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 4
