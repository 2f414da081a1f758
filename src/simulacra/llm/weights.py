"""Making the GGUF file llama.cpp loads from what a package ships: its chunks joined, or its
weights re-encoded into a type that has a fast kernel in xllamacpp's CPU build.

SmolLM2-135M ships as Q4_1, and the build has no fast kernel for Q4_1 (llamafile's GEMM takes
Q8_0, Q4_0 and the K types; the repacked kernels Q4_0 and Q4_K): the same weights written as
Q8_0 process prompts about 1.6 times as fast on one thread (measured, docs/embedded-models.md).
The `gguf` package's own dequantize and quantize do it in numpy, element by element in IEEE
float32 and float16, so the file is the same byte for byte wherever it is made; its sha256 is
checked against the catalogue's after writing and before each load.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from simulacra.errors import UserError

_MIB = 1 << 20


class WeightsError(UserError, RuntimeError):
    """A model file could not be made, or was made with other bytes than expected."""


def models_dir() -> Path:
    """Where made model files live: $SIMULACRA_MODELS, else the user's cache folder."""
    chosen = os.environ.get("SIMULACRA_MODELS")
    if chosen:
        return Path(chosen).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "simulacra" / "models"


def sha256(path: Path) -> str:
    """The file's SHA-256, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(_MIB):
            digest.update(block)
    return digest.hexdigest()


def join(parts: Sequence[Path], target: Path) -> None:
    """Write the parts one after another to `target`."""
    with target.open("wb") as out:
        for part in parts:
            with part.open("rb") as file:
                while block := file.read(_MIB):
                    out.write(block)


def reencode(source: Path, target: Path, old: str, new: str) -> None:
    """Write `source` to `target` with every tensor of GGUF type `old` (e.g. "Q4_1")
    dequantized and quantized again as `new` (e.g. "Q8_0"); metadata and the other tensors
    are copied as they are, and `general.file_type` names the new type. One tensor is held in
    memory at a time."""
    import gguf
    import numpy as np
    from gguf.quants import dequantize, quant_shape_to_byte_shape, quantize

    old_type, new_type = gguf.GGMLQuantizationType[old], gguf.GGMLQuantizationType[new]
    reader = gguf.GGUFReader(source)
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE)
    if arch is None:
        raise WeightsError(f"{source} is not a GGUF model: it names no architecture")
    writer = gguf.GGUFWriter(target, str(arch.contents()))
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue  # the writer writes these itself
        kind = field.types[0]
        value = field.contents()
        if field.name == gguf.Keys.General.FILE_TYPE:
            value = int(gguf.LlamaFileType[f"MOSTLY_{new}"])
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    for tensor in reader.tensors:
        if tensor.tensor_type == old_type:
            shape = quant_shape_to_byte_shape([int(n) for n in reversed(tensor.shape)], new_type)
            bytes_ = np.dtype(np.uint8)
            writer.add_tensor_info(tensor.name, shape, bytes_, math.prod(shape), new_type)
        else:
            data = tensor.data
            writer.add_tensor_info(
                tensor.name, data.shape, data.dtype, data.nbytes, tensor.tensor_type
            )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in reader.tensors:
        data = tensor.data
        if tensor.tensor_type == old_type:
            data = quantize(dequantize(data, old_type), new_type)
        writer.write_tensor_data(data)
    writer.close()


def made(target: Path, expected: str, make: Callable[[Path], None]) -> Path:
    """`target`, made by `make(tmp_path)` unless a file with the `expected` sha256 is there.
    The file is written beside the target and renamed into place, so a reader never sees a
    half-written file and two processes making it at once both leave the same bytes."""
    if target.is_file() and _checked(target) == expected:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        make(tmp)
        got = sha256(tmp)
        if got != expected:
            raise WeightsError(
                f"made {target.name} with sha256 {got}, expected {expected}: the file would "
                "not be the same as on other machines; check that gguf and numpy are the "
                "versions in constraints.txt"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _seen[_stamp(target)] = expected
    return target


_seen: dict[tuple[str, int, int], str] = {}  # files hashed in this process, by path and mtime


def _stamp(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path), stat.st_size, stat.st_mtime_ns


def _checked(path: Path) -> str:
    stamp = _stamp(path)
    if stamp not in _seen:
        _seen[stamp] = sha256(path)
    return _seen[stamp]
