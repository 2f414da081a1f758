"""The default model's re-encoding gives the same bytes on CPUs other than this one, emulated
by qemu's user mode: a Haswell (AVX2, no AVX-512) and a Nehalem (SSE4.2 only), where numpy
takes other kernels for the same float32 and float16 steps."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from tests.emulated import check_on, only_on_x86_64

from simulacra.llm.catalogue import catalogue_model

CHECK = Path(__file__).with_name("reencode_check.py")

pytestmark = only_on_x86_64


@cache
def _on(cpu: str | None) -> dict[str, object]:
    """The check's answer on `cpu` (None: this one); this CPU's is made once for both tests."""
    return check_on(cpu, CHECK, str(catalogue_model("smollm2-135m-q4_1").prepare()))


@pytest.mark.parametrize("cpu", ["Haswell", "Nehalem"])
def test_re_encoding_writes_the_same_bytes_on_another_cpu(cpu: str) -> None:
    here = _on(None)
    assert here["tensors"] == 6
    assert _on(cpu) == here
