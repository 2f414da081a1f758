"""The docs' pictures of the viewer are made from the shipped scenarios by one script
(scripts/doc_pictures.py): each picture it makes is in docs/ and shown by a page, each from a
shipped scenario, and README's viewer picture is one of them, not a hand-made run's."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pictures() -> tuple:
    spec = importlib.util.spec_from_file_location("doc_pictures", ROOT / "scripts/doc_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module.PICTURES


def test_each_picture_the_script_makes_is_in_the_docs_from_a_shipped_scenario() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = {
        Path(link).name
        for page in pages
        for link in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", page.read_text(encoding="utf-8"))
    }
    pictures = _pictures()
    assert pictures
    for picture in pictures:
        assert (ROOT / "docs" / picture.target).is_file(), picture.target
        assert picture.target in shown, f"{picture.target} is shown by no page"
        assert (ROOT / "scenarios" / f"{picture.scenario}.yaml").is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (viewer,) = re.findall(r"!\[[^\]]*\]\(docs/([^)]+\.png)\)", readme)
    assert viewer in {p.target for p in pictures}
