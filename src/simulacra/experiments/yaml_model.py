"""A YAML file read into a pydantic model, each fault named by its field."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from simulacra.errors import UserError
from simulacra.experiments.explain import explained

M = TypeVar("M", bound=BaseModel)


def read_model(path: Path, model: type[M], what: str, error: type[UserError], prefix: str) -> M:
    """`path` as a `model`; `error` names the file and each field at fault, under `prefix`."""
    if not path.is_file():
        raise error(f"{what} not found: {path}")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error(f"{path}: not YAML: {exc}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        lines = "\n".join(f"  {p}" for p in explained(exc.errors(), model, prefix=prefix))
        raise error(f"{path} is not a valid {what}:\n{lines}") from None
