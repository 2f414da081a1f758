"""Figures and tables a world lists in metrics.json, for the report to show generically.

`metrics["figures"]`: [{"title", "file" (relative to the run directory, .svg or .png),
"caption"}]; `metrics["tables"]`: [{"title", "note", "rows": [{column: value}]}]. Images are
embedded as data URIs, so the page stays one self-contained file, and an SVG shown through
<img> cannot run scripts.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_MIME = {".svg": "image/svg+xml", ".png": "image/png"}


@dataclass(frozen=True)
class FigureImage:
    title: str
    caption: str
    uri: str  # a data: URI, or "" when the file could not be read
    problem: str = ""


def figure_images(run: Path, metrics: Mapping[str, Any] | None) -> tuple[FigureImage, ...]:
    raw = metrics.get("figures") if metrics else None
    if not isinstance(raw, list):
        return ()
    return tuple(_image(run, entry) for entry in raw if isinstance(entry, Mapping))


def _image(run: Path, entry: Mapping[str, Any]) -> FigureImage:
    title, caption = str(entry.get("title") or "figure"), str(entry.get("caption") or "")
    name = str(entry.get("file") or "")
    path = (run / name).resolve()
    mime = _MIME.get(path.suffix.lower())
    if not path.is_relative_to(run.resolve()) or mime is None:
        return FigureImage(title, caption, "", f"{name!r}: not an .svg or .png inside the run")
    if not path.is_file():
        return FigureImage(title, caption, "", f"{name!r}: file not found in the run directory")
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return FigureImage(title, caption, f"data:{mime};base64,{data}")
