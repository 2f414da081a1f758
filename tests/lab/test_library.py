"""The library: one folder under git, every change a commit, memory's digest stable."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.lab.front import FrontMatterError, PageMeta, SkillMeta, parse_skill, render
from simulacra.lab.library import SEED, Library, LibraryError


@pytest.fixture
def library(tmp_path: Path) -> Library:
    return Library.create(tmp_path / "library", SEED)


def test_a_library_made_from_the_seed_holds_its_skills_pages_index_and_one_commit(
    library: Library,
) -> None:
    assert len(library.skills()) == 7 and len(library.pages()) == 4
    index = (library.root / "index.md").read_text()
    assert all(f"[[{s.meta.name}]]" in index for s in library.skills())
    assert [m for _, m in library.history()] == ["library: created from the seed"]


def test_a_missing_or_foreign_folder_is_not_a_library(tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match=r"no library here .*`simulacra lab learn --library "):
        Library(tmp_path / "nowhere")
    (tmp_path / "plain").mkdir()
    with pytest.raises(LibraryError, match="not a library"):
        Library(tmp_path / "plain")
    assert issubclass(LibraryError, UserError)


def test_a_library_is_made_only_in_a_new_or_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    with pytest.raises(LibraryError, match="not empty"):
        Library.create(tmp_path / "busy", SEED)


def test_the_digest_changes_with_memory_and_not_with_episodes(library: Library) -> None:
    digest = library.digest()
    (library.root / "episodes" / "e1").mkdir()
    (library.root / "episodes" / "e1" / "task.yaml").write_text("id: x\n")
    assert library.digest() == digest
    library.write_page("new-page", PageMeta(title="T", summary="S"), "body\n")
    assert library.digest() != digest


def test_each_change_is_one_commit_and_nothing_is_no_commit(library: Library) -> None:
    library.write_page("new-page", PageMeta(title="T", summary="S"), "body\n")
    commit = library.commit("memory: new page new-page")
    assert commit == library.head() and library.commit("nothing") is None
    assert library.changes_since_lint() == ["new-page"]


def test_a_script_path_may_not_leave_its_skill(library: Library) -> None:
    meta = SkillMeta(name="escape", description="d")
    with pytest.raises(LibraryError, match="leaves its folder"):
        library.write_skill(meta, "body", {"../../evil.py": "x"})


def test_discarding_drops_what_a_killed_run_left_half_written(library: Library) -> None:
    (library.root / "pages" / "half.md").write_text("---\ntitle: half")
    library.discard_uncommitted()
    assert not (library.root / "pages" / "half.md").exists()


def test_a_skill_that_does_not_parse_is_left_out_and_named_by_front_matter() -> None:
    with pytest.raises(FrontMatterError, match="no front matter"):
        parse_skill("hello", "skills/x/SKILL.md")
    with pytest.raises(FrontMatterError, match="description"):
        parse_skill("---\nname: x\n---\nbody", "skills/x/SKILL.md")


def test_front_matter_round_trips_without_empty_fields() -> None:
    meta = SkillMeta(name="a-skill", description="Does a thing.", tags=["t"])
    text = render(meta, "# body")
    assert "supersedes" not in text and "links" not in text
    assert parse_skill(text, "x") == (meta, "# body\n")
