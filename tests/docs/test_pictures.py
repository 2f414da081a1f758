"""Every picture the docs show is made from the shipped scenarios by one script
(scripts/doc_pictures.py, `make pictures`): the pictures README.md and docs/*.md show are
exactly the ones the script makes, each from a shipped scenario, so none can drift from
what users get."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# An image in Markdown or in HTML, by its path under docs/.
SHOWN = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]*\ssrc=\"([^\"]+)\"")


def _pictures() -> tuple:
    spec = importlib.util.spec_from_file_location("doc_pictures", ROOT / "scripts/doc_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module.PICTURES


def _shown(page: Path) -> set[str]:
    """The pictures a page shows, as paths under docs/."""
    text = page.read_text(encoding="utf-8")
    found = {markdown or html for markdown, html in SHOWN.findall(text)}
    return {
        (page.parent / link).resolve().relative_to(ROOT / "docs").as_posix()
        for link in found
        if "://" not in link
    }


def test_the_pictures_the_docs_show_are_the_pictures_the_script_makes() -> None:
    shown = {picture: page.name for page in PAGES for picture in _shown(page)}
    made = {picture.target for picture in _pictures()}
    assert "viewer.png" in shown and "console.png" in shown  # the reading finds them
    assert sorted(set(shown) - made) == [], "shown, and made by no script: remake by hand drifts"
    assert sorted(made - set(shown)) == [], "made, and shown by no page"
    for picture in _pictures():
        assert (ROOT / "docs" / picture.target).is_file(), picture.target
        assert (ROOT / "scenarios" / f"{picture.scenario}.yaml").is_file()
