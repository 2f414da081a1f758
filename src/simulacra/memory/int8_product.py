"""Products of 8-bit matrices on onnxruntime's integer kernels (MLAS), checked once for exactness.

numpy has no fast 8-bit product: turning int8 rows into float32 for BLAS costs twice the
product itself (at 100,000 x 384: 8 ms to convert, 4 ms for BLAS). onnxruntime, already a
dependency for the MiniLM embedder, multiplies uint8 by int8 with 32-bit sums, about as fast
as reading the matrix twice. The one-node graph is written here as protobuf bytes: the onnx
package (33 MB installed) would only build these 150 bytes.

Which kernel MLAS runs depends on the CPU, and not all of them are exact over the whole int8
range: with AVX2 or AVX-512 but no VNNI, `vpmaddubsw` adds each pair of uint8 x int8 products
in a saturating 16-bit lane, so 2 * 255 * 127 = 64,770 overflows it (every row of a random
matrix came out wrong under `qemu-x86_64 -cpu Haswell`). Columns are therefore kept within
+-64: a pair is then at most 2 * 255 * 64 = 32,640 and fits on every kernel. The first product
also checks the kernel against numpy on the worst cases of that range and, should a CPU's
kernel still disagree, every product takes an exact numpy path instead (slower, logged).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import cache

import numpy as np
import numpy.typing as npt
import onnxruntime as ort

UInt8s = npt.NDArray[np.uint8]
Int8s = npt.NDArray[np.int8]
Int32s = npt.NDArray[np.int32]
Kernel = Callable[[UInt8s, Int8s], Int32s]

# The uint8 code that stands for 0: uint8 codes are int8 codes plus 128.
ZERO_POINT = 128
_ZERO = np.array(ZERO_POINT, dtype=np.uint8)

# The largest |column| a product takes: two products of it with 255 fit a 16-bit lane.
COLUMN_LIMIT = 64

# Rows the numpy path converts to float32 at a time: a block stays in the cache.
_BLOCK = 8192

# onnx.proto's TensorProto.DataType values.
_UINT8, _INT8, _INT32 = 2, 3, 6

_log = logging.getLogger(__name__)


def int8_product(rows: UInt8s, columns: Int8s) -> Int32s:
    """(rows - 128) @ columns, exactly, in int32: rows (n, d) uint8, columns (d, m) int8
    within +-COLUMN_LIMIT."""
    if rows.ndim != 2 or columns.ndim != 2 or rows.shape[1] != columns.shape[0]:
        raise ValueError(
            f"int8_product needs rows (n, d) and columns (d, m), got {rows.shape} and "
            f"{columns.shape}"
        )
    peak = int(np.abs(columns.astype(np.int16)).max()) if columns.size else 0
    if peak > COLUMN_LIMIT:
        raise ValueError(
            f"int8_product takes columns within +-{COLUMN_LIMIT} (beyond it some CPUs' kernels "
            f"saturate), got values up to {peak}"
        )
    return _kernel()(rows, columns)


def kernel_name() -> str:
    """Which path products take on this machine: "onnxruntime", or "numpy" where the probe
    found onnxruntime's kernel inexact."""
    return "onnxruntime" if _kernel() is onnx_product else "numpy"


def onnx_product(rows: UInt8s, columns: Int8s) -> Int32s:
    """(rows - 128) @ columns on onnxruntime's MatMulInteger, as the CPU's kernel computes it."""
    feeds = {
        "rows": np.ascontiguousarray(rows, dtype=np.uint8),
        "columns": np.ascontiguousarray(columns, dtype=np.int8),
        "zero": _ZERO,
    }
    (product,) = _session().run(None, feeds)
    result: Int32s = product
    return result


def numpy_product(rows: UInt8s, columns: Int8s) -> Int32s:
    """(rows - 128) @ columns through float32 BLAS, block by block: exact while every sum
    stays below 2**24 (128 * 64 * d, so for d up to 2,048)."""
    weights = columns.astype(np.float32)
    out = np.empty((rows.shape[0], columns.shape[1]), dtype=np.int32)
    for start in range(0, rows.shape[0], _BLOCK):
        block = rows[start : start + _BLOCK].astype(np.float32)
        block -= ZERO_POINT
        out[start : start + _BLOCK] = block @ weights
    return out


def kernel_is_exact(kernel: Kernel) -> bool:
    """Whether `kernel` gives the exact product on the worst cases of the allowed range:
    rows at 0 and 255 against columns at +-COLUMN_LIMIT, in every mix of signs, and random."""
    rows, columns = _probe()
    expected = (rows.astype(np.int64) - ZERO_POINT) @ columns.astype(np.int64)
    return bool(np.array_equal(kernel(rows, columns), expected))


@cache
def _probe() -> tuple[UInt8s, Int8s]:
    d = 256
    rng = np.random.default_rng(0)
    extremes = np.array([0, 255], dtype=np.uint8)
    rows = np.concatenate(
        [
            np.full((1, d), 255, np.uint8),
            np.zeros((1, d), np.uint8),
            np.tile(extremes, (1, d // 2)),
            rng.choice(extremes, (29, d)),
            rng.integers(0, 256, (32, d), dtype=np.uint8),
        ]
    )
    limit = np.array([COLUMN_LIMIT, -COLUMN_LIMIT], dtype=np.int8)
    columns = np.stack(
        [
            np.full(d, COLUMN_LIMIT, np.int8),
            np.full(d, -COLUMN_LIMIT, np.int8),
            np.tile(limit, d // 2),
            rng.choice(limit, d),
            rng.integers(-COLUMN_LIMIT, COLUMN_LIMIT + 1, d).astype(np.int8),
        ],
        axis=1,
    )
    return rows, columns


@cache
def _kernel() -> Kernel:
    if kernel_is_exact(onnx_product):
        return onnx_product
    _log.warning(
        "onnxruntime's 8-bit product is inexact on this CPU; retrieval takes the exact but "
        "slower numpy path"
    )
    return numpy_product


@cache
def _session() -> ort.InferenceSession:
    options = ort.SessionOptions()
    # One thread: a retrieval is one agent's turn; agents run side by side, not inside it.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(_model(), options, providers=["CPUExecutionProvider"])


def _model() -> bytes:
    """ModelProto: rows (n, d) uint8 and columns (d, m) int8 -> MatMulInteger -> (n, m) int32."""
    node = _strings(1, "rows", "columns", "zero") + _strings(2, "product")
    node += _strings(4, "MatMulInteger")
    graph = _message(1, node) + _strings(2, "int8_product")
    graph += _message(11, _tensor("rows", _UINT8, "n", "d"))
    graph += _message(11, _tensor("columns", _INT8, "d", "m"))
    graph += _message(11, _tensor("zero", _UINT8))
    graph += _message(12, _tensor("product", _INT32, "n", "m"))
    opset = _strings(1, "") + _varint_field(2, 10)  # MatMulInteger is in opset 10
    return _varint_field(1, 7) + _message(7, graph) + _message(8, opset)  # IR version 7


def _tensor(name: str, elem_type: int, *dims: str) -> bytes:
    """ValueInfoProto of a tensor with named (symbolic) dimensions."""
    shape = b"".join(_message(1, _strings(2, dim)) for dim in dims)
    tensor = _varint_field(1, elem_type) + _message(2, shape)
    return _strings(1, name) + _message(2, _message(1, tensor))


def _strings(field: int, *values: str) -> bytes:
    return b"".join(_message(field, value.encode()) for value in values)


def _message(field: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _varint_field(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
