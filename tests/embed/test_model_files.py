"""Shipped model files are checked before use: a changed file must never load silently."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simulacra.embed import Model2VecEmbedder, ModelFileError
from simulacra.embed.static import SHIPPED


@pytest.fixture
def model_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "m2v"
    shutil.copytree(SHIPPED, folder)
    return folder


def test_the_shipped_model2vec_files_match_their_checksums() -> None:
    assert Model2VecEmbedder().embed(["a cafe"]).shape == (1, 256)


def test_a_corrupted_model_file_is_refused_with_its_name_and_a_fix(model_copy: Path) -> None:
    weights = model_copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"model\.safetensors is corrupted.*distill_model2vec"):
        Model2VecEmbedder(model_copy).embed(["a cafe"])


def test_a_missing_model_file_is_refused(model_copy: Path) -> None:
    (model_copy / "tokenizer.json").unlink()
    with pytest.raises(ModelFileError, match=r"tokenizer\.json is missing"):
        Model2VecEmbedder(model_copy).embed(["a cafe"])


def test_a_missing_checksum_list_is_refused(model_copy: Path) -> None:
    (model_copy / "checksums.sha256").unlink()
    with pytest.raises(ModelFileError, match=r"checksums\.sha256 is missing"):
        Model2VecEmbedder(model_copy).embed(["a cafe"])
