"""The fast option: a model2vec static model distilled from all-MiniLM-L6-v2 (256 dims).

A sentence is the mean of its tokens' rows of one table, so it needs no neural network at
run time. scripts/distill_model2vec.py made the shipped files; this reads them with
safetensors and tokenizers exactly as model2vec's StaticModel.encode does.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from simulacra.embed.base import Vectors, normalise
from simulacra.embed.files import verify_folder

SHIPPED = Path(__file__).resolve().parent / "data" / "minilm-m2v-256"
_FIX = (
    "Restore the folder from the simulacra repository, or rebuild it with "
    "scripts/distill_model2vec.py (its docstring says how)."
)


@dataclass(frozen=True)
class _Loaded:
    table: np.ndarray[Any, np.dtype[np.float32]]
    tokenizer: Any
    unknown_id: int | None


# Process-wide on purpose: one 30 MB table per folder, shared by every embedder on it.
@functools.cache
def _load(folder: Path) -> _Loaded:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    verify_folder(folder, _FIX)
    config = json.loads((folder / "config.json").read_text())
    table = load_file(str(folder / "model.safetensors"))["embeddings"].astype(np.float32)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    if config.get("max_length") is not None:
        tokenizer.enable_truncation(max_length=int(config["max_length"]))
    unknown = getattr(tokenizer.model, "unk_token", None)
    unknown_id = tokenizer.token_to_id(unknown) if unknown else None
    return _Loaded(table=table, tokenizer=tokenizer, unknown_id=unknown_id)


class Model2VecEmbedder:
    """A text with no known token gets a zero row. Loads on the first call to `embed`."""

    def __init__(self, folder: Path = SHIPPED) -> None:
        self.folder = folder.resolve()
        self.name = f"model2vec:{self.folder.name}"
        config_path = self.folder / "config.json"
        if not config_path.is_file():
            raise FileNotFoundError(f"no model2vec model in {self.folder}: config.json is missing")
        self.dim = int(json.loads(config_path.read_text())["hidden_dim"])

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        loaded = _load(self.folder)
        encodings = loaded.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        id_lists = [e.ids for e in encodings]
        lengths = np.fromiter(map(len, id_lists), dtype=np.int64, count=len(id_lists))
        flat = np.fromiter(chain.from_iterable(id_lists), dtype=np.int64, count=int(lengths.sum()))
        row_of = np.repeat(np.arange(len(texts)), lengths)
        # model2vec drops the unknown token: it would pull every odd word to one point.
        if loaded.unknown_id is not None:
            known = flat != loaded.unknown_id
            flat, row_of = flat[known], row_of[known]
        counts = np.bincount(row_of, minlength=len(texts))
        rows = counts > 0
        if flat.size:
            starts = (np.cumsum(counts) - counts)[rows]
            sums = np.add.reduceat(loaded.table[flat], starts, axis=0)
            out[rows] = sums / counts[rows, None].astype(np.float32)
        return normalise(out)
