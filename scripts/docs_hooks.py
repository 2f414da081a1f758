"""MkDocs hooks (mkdocs.yml): the pages generated at build time.

- `reference/scenario.md` from the `Scenario` model (simulacra.experiments.reference);
- every notebook under docs/notebooks/ (jupytext percent scripts): executed on an IPython
  kernel by nbclient, from the repository's root, then rendered as a page with its outputs,
  beside the executed .ipynb to download. A cell that raises fails the build; each
  notebook's time is logged.
"""

from __future__ import annotations

import base64
import logging
import re
import time
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from nbclient import NotebookClient

from simulacra.experiments.reference import scenario_reference

log = logging.getLogger("mkdocs.plugins.simulacra")
NOTEBOOKS = "notebooks"
CELL_TIMEOUT_S = 300
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, "reference/scenario.md", content=scenario_reference()))
    root = Path(config.config_file_path).parent
    for source in sorted((Path(config.docs_dir) / NOTEBOOKS).glob("*.py")):
        started = time.perf_counter()
        notebook = execute(source, root)
        log.info("notebook %s: executed in %.1f s", source.name, time.perf_counter() - started)
        page, pictures = render(notebook, source.stem)
        folder = f"{NOTEBOOKS}/{source.stem}"
        files.append(File.generated(config, f"{folder}.md", content=page))
        ipynb = nbformat.writes(notebook)
        files.append(File.generated(config, f"{folder}.ipynb", content=ipynb))
        for name, png in pictures.items():
            files.append(File.generated(config, f"{NOTEBOOKS}/{name}", content=png))
    return files


def execute(source: Path, root: Path) -> Any:
    """The notebook kept as text in `source`, run top to bottom in a fresh kernel."""
    notebook = jupytext.read(source, fmt="py:percent")
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(root)}},
    )
    client.execute()
    return notebook


def render(notebook: Any, stem: str) -> tuple[str, dict[str, bytes]]:
    """Markdown for an executed notebook, and the PNG files its outputs refer to."""
    parts: list[str] = []
    pictures: dict[str, bytes] = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        if cell.source.strip():
            parts.append(_fence("python", cell.source))
        for output in cell.outputs:
            shown = _output(output, stem, pictures)
            if shown:
                parts.append(shown)
    download = (
        f"[Download the notebook]({stem}.ipynb) (executed) · "
        f"[its source kept as text]({stem}.py) (jupytext)"
    )
    parts.insert(1 if parts and parts[0].startswith("# ") else 0, download)  # under the title
    return "\n\n".join(parts) + "\n", pictures


def _output(output: Any, stem: str, pictures: dict[str, bytes]) -> str | None:
    if output.output_type == "stream":
        return _fence("text", _ANSI.sub("", output.text))
    data = output.get("data", {})
    if "image/png" in data:
        name = f"{stem}-{len(pictures) + 1}.png"
        pictures[name] = base64.b64decode(data["image/png"])
        return f"![output {len(pictures)} of {stem}]({name})"
    if "text/html" in data:
        # A raw HTML block must have no blank line inside; pandas escapes cell text.
        html = "\n".join(line for line in data["text/html"].splitlines() if line.strip())
        return f'<div class="nb-output">\n{html}\n</div>'
    if "text/plain" in data:
        return _fence("text", _ANSI.sub("", data["text/plain"]))
    return None


def _fence(language: str, text: str) -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"
