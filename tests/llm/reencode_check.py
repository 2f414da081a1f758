"""Run under an emulated CPU (tests/llm/test_reencode_cpus.py): the sha256 of the default
model's first Q4_1 tensors re-encoded as Q8_0 by gguf's numpy code, as one JSON line. Not a
test module: a program the test runs. (The whole file takes minutes under emulation; these
tensors go through every kind of step it takes: the float16 scales and minimums, the
rounding away from zero, the int8 codes.)"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import gguf
from gguf.quants import dequantize, quantize

TENSORS = 6


def main(path: Path) -> None:
    q4_1, q8_0 = gguf.GGMLQuantizationType.Q4_1, gguf.GGMLQuantizationType.Q8_0
    digest = hashlib.sha256()
    tensors = [t for t in gguf.GGUFReader(path).tensors if t.tensor_type == q4_1][:TENSORS]
    for tensor in tensors:
        digest.update(quantize(dequantize(tensor.data, q4_1), q8_0).tobytes())
    print(json.dumps({"tensors": len(tensors), "sha256": digest.hexdigest()}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
