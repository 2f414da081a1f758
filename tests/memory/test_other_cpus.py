"""The 8-bit product on CPUs other than this one, emulated by qemu's user mode: a Haswell
(AVX2 without VNNI, where onnxruntime's kernel saturates 16-bit pair sums) and a Nehalem
(SSE4.2 only). Each runs tests/memory/cpu_check.py in this virtual environment's Python."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from tests.emulated import check_on, only_on_x86_64

CHECK = Path(__file__).with_name("cpu_check.py")

pytestmark = only_on_x86_64


# Cached: the Haswell run serves both tests that read it (one emulated run, not two).
@cache
def _check_on(cpu: str) -> dict[str, object]:
    return check_on(cpu, CHECK)


@pytest.mark.parametrize("cpu", ["Haswell", "Nehalem"])
def test_relevance_is_exact_on_a_cpu_without_vnni(cpu: str) -> None:
    found = _check_on(cpu)
    assert found["wrong_rows"] == 0
    assert found["relevance_outside_bound"] == 0


def test_the_emulated_haswell_has_the_saturating_kernel() -> None:
    # Proof that the emulation reaches the kernel at fault: over the full int8 range its
    # products are wrong, so the exact results above are the range's doing, not the CPU's.
    found = _check_on("Haswell")
    assert found["onnx_wrong_rows_full_range"] > 1000
    assert found["kernel"] == "onnxruntime"
