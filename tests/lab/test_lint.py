"""Memory lint: each check finds its fault, each certain repair is made, logged and committed."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.lab.front import PageMeta, SkillMeta
from simulacra.lab.library import SEED, Library
from simulacra.lab.lint import lint, script_problem


@pytest.fixture
def library(tmp_path: Path) -> Library:
    return Library.create(tmp_path / "library", SEED)


def _skill(library: Library, name: str, **fields: object) -> None:
    meta = SkillMeta.model_validate(
        {"name": name, "description": f"The {name} skill.", "outputs": [f"outputs/{name}.xml"]}
        | fields
    )
    library.write_skill(meta, f"# {name}\n", {"run.py": "print('ok')\n"})


def test_a_seed_library_lints_clean(library: Library) -> None:
    report = lint(library)
    assert report.checked == len(library.skills()) + len(library.pages())
    assert not report.findings
    assert library.history(1)[0][1] == "lint: 0 repairs, 0 open findings"


def test_a_skill_named_unlike_its_folder_is_renamed_to_it(library: Library) -> None:
    path = library.root / "skills" / "plot-summary" / "SKILL.md"
    path.write_text(path.read_text().replace("name: plot-summary", "name: plot-other"))
    (finding,) = lint(library).findings
    assert finding.repaired and finding.message == "name set to the folder's, plot-summary"
    assert library.skill("plot-summary") is not None


def test_broken_front_matter_is_an_open_finding(library: Library) -> None:
    (library.root / "pages" / "broken.md").write_text("no front matter here\n")
    findings = lint(library).findings
    assert [(f.artifact, f.repaired) for f in findings] == [("pages/broken.md", False)]
    assert "lint finding: pages/broken.md" in (library.root / "log.md").read_text()


def test_links_to_missing_artifacts_are_removed(library: Library) -> None:
    _skill(library, "orphan-linker", links=["create-grid-network", "gone-skill"])
    page = library.root / "pages" / "sumo-output-files.md"
    page.write_text(page.read_text() + "\nSee [[nowhere]].\n")
    report = lint(library)
    repaired = {f.artifact: f.message for f in report.repairs}
    assert "['gone-skill']" in repaired["skills/orphan-linker/SKILL.md"]
    assert "['nowhere']" in repaired["pages/sumo-output-files.md"]
    skill = library.skill("orphan-linker")
    assert skill is not None and skill.meta.links == ["create-grid-network"]
    assert "[[nowhere]]" not in page.read_text() and "nowhere" in page.read_text()


def test_a_script_that_does_not_parse_is_an_open_finding(library: Library) -> None:
    script = library.root / "skills" / "plot-summary" / "scripts" / "plot_summary.py"
    script.write_text("def broken(:\n")
    (finding,) = lint(library).findings
    assert finding.check == "scripts parse" and not finding.repaired
    assert script_problem("a.sh", "if then fi fi\n") is not None
    assert script_problem("a.py", "x = 1\n") is None


def test_a_usage_that_names_a_missing_script_is_found(library: Library) -> None:
    (library.root / "skills" / "plot-summary" / "scripts" / "plot_summary.py").unlink()
    checks = {f.check for f in lint(library).findings}
    assert checks == {"referenced files"}


def test_a_near_duplicate_is_merged_and_its_links_follow(library: Library) -> None:
    same = "Build a square grid road network with netgenerate"
    _skill(library, "grid-maker", description=f"{same}.", outputs=["outputs/grid.net.xml"])
    _skill(library, "grid-builder", description=f"{same}!", outputs=["outputs/grid.net.xml"])
    _skill(library, "user-of-builder", links=["grid-builder"])
    report = lint(library)
    (merged,) = [f for f in report.findings if f.check == "near-duplicate"]
    assert merged.artifact == "skills/grid-builder" and "grid-maker" in merged.message
    user = library.skill("user-of-builder")
    assert library.skill("grid-builder") is None
    assert user is not None and user.meta.links == ["grid-maker"]


def test_a_superseded_skill_is_removed_and_its_links_point_at_its_successor(
    library: Library,
) -> None:
    _skill(library, "pipeline-old")
    _skill(library, "pipeline-new", supersedes=["pipeline-old"])
    _skill(library, "caller", links=["pipeline-old"])
    page = library.root / "pages" / "sumo-output-files.md"
    page.write_text(page.read_text() + "\nRun [[pipeline-old]].\n")
    report = lint(library)
    (removed,) = [f for f in report.findings if f.check == "superseded"]
    assert removed.repaired and removed.artifact == "skills/pipeline-old"
    assert library.skill("pipeline-old") is None
    caller = library.skill("caller")
    assert caller is not None and caller.meta.links == ["pipeline-new"]
    assert "[[pipeline-new]]" in page.read_text()
    assert (
        "lint repair: skills/pipeline-old: removed: pipeline-new replaces it"
        in (library.root / "log.md").read_text()
    )


def test_a_superseded_page_is_removed(library: Library) -> None:
    meta = PageMeta(title="Outputs", summary="All of them.", supersedes=["sumo-output-files"])
    library.write_page("sumo-outputs", meta, "# Outputs\n")
    lint(library)
    assert library.page("sumo-output-files") is None
    skill = library.skill("run-simulation")
    assert skill is not None and "[[sumo-outputs]]" in skill.body


def test_an_incremental_lint_checks_only_what_changed(library: Library) -> None:
    (library.root / "pages" / "broken.md").write_text("no front matter\n")
    _skill(library, "fresh-skill")
    report = lint(library, changed=["fresh-skill"])
    assert report.checked == 1 and not report.open
    assert "lint (1 changed)" in (library.root / "log.md").read_text()
