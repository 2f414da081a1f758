"""Outputs that parse but hold nothing (`lab.empty`): what SUMO writes when nothing moved, and
required files with no content. The real runs are in test_faults.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.lab.empty import holds_nothing, unrecorded

_NOTHING_MOVED = {
    "fcd-export": '<fcd-export><timestep time="0.00"/><timestep time="1.00"/></fcd-export>',
    "summary": '<summary><step time="0.00" loaded="0" inserted="0"/></summary>',
    "meandata": '<meandata><interval begin="0"><edge id="a" sampledSeconds="0.00"/>'
    "</interval></meandata>",
    "detector": '<detector><interval begin="0" nVehContrib="0" nVehEntered="0"/></detector>',
    "tripinfos": "<tripinfos>\n</tripinfos>",
}
_MOVED = {
    "fcd-export": '<fcd-export><timestep time="0.00"><vehicle id="v" x="1"/></timestep>'
    "</fcd-export>",
    "summary": '<summary><step time="0.00" inserted="0"/><step time="1.00" inserted="2"/>'
    "</summary>",
    "meandata": '<meandata><interval begin="0"><edge id="a" sampledSeconds="0.00"/>'
    '<edge id="b" sampledSeconds="12.5"/></interval></meandata>',
    "detector": '<detector><interval begin="0" nVehContrib="3"/></detector>',
    "tripinfos": '<tripinfos><tripinfo id="0" duration="9"/></tripinfos>',
}


@pytest.mark.parametrize("root", sorted(_NOTHING_MOVED))
def test_a_sumo_output_that_recorded_no_traffic_is_named_and_one_that_did_is_not(
    tmp_path: Path, root: str
) -> None:
    empty, moved = tmp_path / "empty.xml", tmp_path / "moved.xml"
    empty.write_text(_NOTHING_MOVED[root])
    moved.write_text(_MOVED[root])
    assert (unrecorded(empty) or "").startswith("records nothing: SUMO wrote no <")
    assert unrecorded(moved) is None


def test_collisions_and_files_sumo_does_not_write_may_record_nothing(tmp_path: Path) -> None:
    for name, text in [("c.xml", "<collisions>\n</collisions>"), ("r.xml", "<routes/>"),
                       ("bad.xml", "<fcd-export><timestep")]:  # fmt: skip
        (tmp_path / name).write_text(text)
        assert unrecorded(tmp_path / name) is None


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("r.xml", "<routes>\n</routes>\n", "holds no element under its root <routes>"),
        ("t.csv", "id,duration\n\n", "holds no row under its header"),
        ("m.json", "{}", "holds an empty JSON document"),
        ("m.yaml", "# nothing\n", "holds an empty YAML document"),
    ],
)
def test_a_required_file_with_no_content_is_named(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    (tmp_path / name).write_text(text)
    assert holds_nothing(tmp_path / name) == problem


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("r.xml", '<routes><trip id="0" from="a" to="b"/></routes>'),
        ("t.csv", "id,duration\n0,9\n"),
        ("m.json", '{"trips": 0}'),
        ("m.yaml", "trips: 3\n"),
        ("help.txt", ""),  # a format whose emptiness the size alone tells
    ],
)
def test_a_file_with_content_holds_something(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    assert holds_nothing(tmp_path / name) is None
