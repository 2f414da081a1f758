"""What the hardening tests share: the command run in a child process (optionally under a
file-size limit, the kernel's own way of making a disk refuse writes), and a small El Farol
run on the scripted model."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
ELFAROL = SCENARIOS / "elfarol.yaml"


def small_elfarol(root: Path, *extra: str) -> list[str]:
    """Ten El Farol agents for nine weeks, a checkpoint every two: a run of a second."""
    return [
        "model.spec=scripted",
        "agents.count=10",
        "clock.ticks=9",
        "clock.checkpoint_every=2",
        f"output.root={root}",
        "output.report=false",
        *extra,
    ]


def simulacra(
    *args: str, file_limit: int | None = None, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`simulacra ARGS` in a child process. With `file_limit`, no file it writes may grow
    beyond that many bytes: a write past it fails with EFBIG, part-written, as on a full
    disk."""

    def limit() -> None:
        if file_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write, do not kill
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(
        [sys.executable, "-c", "from simulacra.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        preexec_fn=limit,
    )


def sets(overrides: list[str]) -> list[str]:
    """`--set` arguments for each override."""
    return [arg for override in overrides for arg in ("--set", override)]


def run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path
