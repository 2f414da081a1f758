"""The default model's re-encoding gives the same bytes on CPUs other than this one, emulated
by qemu's user mode: a Haswell (AVX2, no AVX-512) and a Nehalem (SSE4.2 only), where numpy
takes other kernels for the same float32 and float16 steps."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simulacra.llm.catalogue import catalogue_model

CHECK = Path(__file__).with_name("reencode_check.py")
QEMU = shutil.which("qemu-x86_64")

pytestmark = pytest.mark.skipif(
    platform.machine() != "x86_64", reason="emulates x86-64 CPUs for an x86-64 Python"
)


def _digest(*emulate: str) -> dict[str, object]:
    shipped = catalogue_model("smollm2-135m-q4_1").prepare()
    done = subprocess.run(
        [*emulate, sys.executable, str(CHECK), str(shipped)],
        capture_output=True,
        text=True,
        timeout=280,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("cpu", ["Haswell", "Nehalem"])
def test_re_encoding_writes_the_same_bytes_on_another_cpu(cpu: str) -> None:
    assert QEMU is not None, "needs qemu-x86_64 (Debian's qemu-user; make install-dev installs it)"
    here = _digest()
    assert here["tensors"] == 6
    assert _digest(QEMU, "-cpu", cpu) == here
