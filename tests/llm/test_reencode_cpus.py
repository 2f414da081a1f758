"""The default model's re-encoding gives the same bytes on CPUs other than this one, emulated
by qemu's user mode: a Haswell (AVX2, no AVX-512) and a Nehalem (SSE4.2 only), where numpy
takes other kernels for the same float32 and float16 steps."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.emulated import check_on, only_on_x86_64

from simulacra.llm.catalogue import catalogue_model

CHECK = Path(__file__).with_name("reencode_check.py")

pytestmark = only_on_x86_64


@pytest.mark.parametrize("cpu", ["Haswell", "Nehalem"])
def test_re_encoding_writes_the_same_bytes_on_another_cpu(cpu: str) -> None:
    shipped = str(catalogue_model("smollm2-135m-q4_1").prepare())
    here = check_on(None, CHECK, shipped)
    assert here["tensors"] == 6
    assert check_on(cpu, CHECK, shipped) == here
