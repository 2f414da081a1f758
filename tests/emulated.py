"""Running a check program of this virtual environment's Python on another x86-64 CPU,
emulated by qemu's user mode, and reading the JSON line it prints last."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

QEMU = shutil.which("qemu-x86_64")

only_on_x86_64 = pytest.mark.skipif(
    platform.machine() != "x86_64", reason="emulates x86-64 CPUs for an x86-64 Python"
)


def check_on(cpu: str | None, program: Path, *args: str, timeout: int = 300) -> dict[str, object]:
    """`program`'s last line as JSON, run under an emulated `cpu` (None: this one)."""
    emulate: list[str] = []
    if cpu is not None:
        assert QEMU is not None, (
            "needs qemu-x86_64 (Debian's qemu-user; make install-dev installs it)"
        )
        emulate = [QEMU, "-cpu", cpu]
    done = subprocess.run(
        [*emulate, sys.executable, str(program), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
