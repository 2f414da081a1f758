"""Claims are compared as their type demands, and no claim crashes the checker."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.lab.claims import Claim, Measure, compute, disagreement

TRIPINFO = """<tripinfos>
    <tripinfo id="a" departLane="B1C1_0" duration="15.00" waitingTime="0.00" routeLength="180.50"/>
    <tripinfo id="b" departLane="C2B2_0" duration="35.00" waitingTime="2.50" routeLength="384.30"/>
    <tripinfo id="c" departLane="A2A1_0" duration="12.00" waitingTime="1.00" routeLength="184.50"/>
</tripinfos>
"""
STATISTICS = '<statistics><vehicles loaded="300" inserted="300"/></statistics>\n'


@pytest.fixture
def attempt(tmp_path: Path) -> Path:
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "tripinfo.xml").write_text(TRIPINFO)
    (outputs / "statistics.xml").write_text(STATISTICS)
    (outputs / "odd.xml").write_text('<statistics><vehicles inserted="3.5"/></statistics>')
    (outputs / "metrics.json").write_text(
        json.dumps({"trips": 3, "mean_duration_s": 20.667, "lane": "B1C1_0", "ok": True})
    )
    (outputs / "lanes.csv").write_text("lane,speed\nB1C1_0,12.5\nC2B2_0,13.5\n")
    return tmp_path


def _claim(
    value: float | str, measure: str, artifact: str = "outputs/tripinfo.xml", **kw: str
) -> Claim:
    return Claim(name="c", value=value, artifact=artifact, measure=Measure(measure), **kw)


def test_a_count_must_match_exactly(attempt: Path) -> None:
    assert disagreement(_claim(3, "xml_count", element="tripinfo"), attempt) is None
    problem = disagreement(_claim(4, "xml_count", element="tripinfo"), attempt)
    assert problem is not None and "gives 3 (compared exactly)" in problem


def test_an_integer_attribute_is_a_count_and_off_by_two_is_refused(attempt: Path) -> None:
    inserted = {"element": "vehicles", "attribute": "inserted"}
    stats = "outputs/statistics.xml"
    assert disagreement(_claim(300, "xml_attribute", stats, **inserted), attempt) is None
    assert disagreement(_claim(302, "xml_attribute", stats, **inserted), attempt) is not None
    assert disagreement(_claim(300.4, "xml_attribute", stats, **inserted), attempt) is not None


def test_a_text_attribute_is_compared_as_text_and_does_not_crash(attempt: Path) -> None:
    lane = {"element": "tripinfo", "attribute": "departLane"}
    assert disagreement(_claim("B1C1_0", "xml_attribute", **lane), attempt) is None
    problem = disagreement(_claim("A0B0_0", "xml_attribute", **lane), attempt)
    assert problem is not None and "'B1C1_0'" in problem
    # A number claimed for a text is a disagreement, not a crash.
    assert disagreement(_claim(12.0, "xml_attribute", **lane), attempt) is not None


def test_a_mean_over_a_text_attribute_is_a_finding(attempt: Path) -> None:
    problem = disagreement(
        _claim(1.0, "xml_mean", element="tripinfo", attribute="departLane"), attempt
    )
    assert problem is not None and "not a number" in problem


def test_a_value_read_must_match_as_written(attempt: Path) -> None:
    longest = {"element": "tripinfo", "attribute": "routeLength"}
    assert disagreement(_claim(384.3, "xml_max", **longest), attempt) is None
    assert disagreement(_claim(384.304, "xml_max", **longest), attempt) is None  # half a unit
    assert disagreement(_claim(384.4, "xml_max", **longest), attempt) is not None
    assert disagreement(_claim(180.5, "xml_min", **longest), attempt) is None


def test_an_aggregate_may_be_rounded_but_not_moved(attempt: Path) -> None:
    duration = {"element": "tripinfo", "attribute": "duration"}
    assert disagreement(_claim(20.667, "xml_mean", **duration), attempt) is None
    assert disagreement(_claim(20.6667, "xml_mean", **duration), attempt) is None
    assert disagreement(_claim(20.8, "xml_mean", **duration), attempt) is not None  # 0.6% off
    waiting = {"element": "tripinfo", "attribute": "waitingTime"}
    assert disagreement(_claim(3.5, "xml_sum", **waiting), attempt) is None


def test_a_non_integer_count_attribute_is_read_as_written(attempt: Path) -> None:
    inserted = {"element": "vehicles", "attribute": "inserted"}
    assert (
        disagreement(_claim(3.5, "xml_attribute", "outputs/odd.xml", **inserted), attempt) is None
    )
    assert (
        disagreement(_claim(3, "xml_attribute", "outputs/odd.xml", **inserted), attempt) is not None
    )


def test_json_values_numbers_and_texts(attempt: Path) -> None:
    metrics = "outputs/metrics.json"
    assert disagreement(_claim(3, "json_value", metrics, key="trips"), attempt) is None
    assert disagreement(_claim(5, "json_value", metrics, key="trips"), attempt) is not None
    assert disagreement(_claim("B1C1_0", "json_value", metrics, key="lane"), attempt) is None
    problem = disagreement(_claim(1, "json_value", metrics, key="ok"), attempt)
    assert problem is not None and "neither a number nor a text" in problem
    problem = disagreement(_claim(1, "json_value", metrics, key="missing.key"), attempt)
    assert problem is not None and "has no key" in problem


def test_a_csv_mean_over_a_text_column_is_a_finding(attempt: Path) -> None:
    lanes = "outputs/lanes.csv"
    assert disagreement(_claim(13.0, "csv_mean", lanes, key="speed"), attempt) is None
    assert disagreement(_claim(2, "csv_count", lanes), attempt) is None
    problem = disagreement(_claim(1.0, "csv_mean", lanes, key="lane"), attempt)
    assert problem is not None and "not a number" in problem


def test_an_artifact_outside_the_attempt_or_missing_is_a_finding(attempt: Path) -> None:
    outside = disagreement(_claim(1, "xml_count", "../elsewhere.xml", element="x"), attempt)
    assert outside is not None and "outside the attempt" in outside
    (attempt / "outputs" / "link.xml").symlink_to(attempt.parent)
    linked = disagreement(_claim(1, "xml_count", "outputs/link.xml", element="x"), attempt)
    assert linked is not None and "outside the attempt" in linked
    missing = disagreement(_claim(1, "xml_count", "outputs/none.xml", element="x"), attempt)
    assert missing is not None and "does not exist" in missing


def test_a_broken_artifact_is_a_finding(attempt: Path) -> None:
    (attempt / "outputs" / "broken.xml").write_text("<tripinfos><tripinfo")
    problem = disagreement(_claim(1, "xml_count", "outputs/broken.xml", element="t"), attempt)
    assert problem is not None and "cannot be read" in problem


def test_the_measures_that_need_fields_say_so(attempt: Path) -> None:
    assert "needs `element`" in (disagreement(_claim(1, "xml_count"), attempt) or "")
    assert "needs `attribute`" in (
        disagreement(_claim(1, "xml_mean", element="tripinfo"), attempt) or ""
    )
    assert "needs `key`" in (
        disagreement(_claim(1, "json_value", "outputs/metrics.json"), attempt) or ""
    )


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=30))
def test_a_sum_of_whole_numbers_is_exact(
    tmp_path_factory: pytest.TempPathFactory, counts: list[int]
) -> None:
    root = tmp_path_factory.mktemp("sum")
    (root / "loops.xml").write_text(
        "<detector>" + "".join(f'<interval nVehContrib="{c}"/>' for c in counts) + "</detector>"
    )
    claim = {"artifact": "loops.xml", "element": "interval", "attribute": "nVehContrib"}
    total = sum(counts)
    assert compute(_claim(total, "xml_sum", **claim), root).tolerance == "exact"
    assert disagreement(_claim(total, "xml_sum", **claim), root) is None
    assert disagreement(_claim(total + 1, "xml_sum", **claim), root) is not None


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(max_size=20), claimed=st.one_of(st.floats(allow_nan=True), st.text(max_size=10))
)
def test_no_attribute_text_and_no_claimed_value_crashes_a_check(
    tmp_path_factory: pytest.TempPathFactory, text: str, claimed: float | str
) -> None:
    root = tmp_path_factory.mktemp("any")
    ET.ElementTree(ET.Element("v", a=text)).write(root / "a.xml")
    for measure in ("xml_attribute", "xml_mean", "xml_max", "xml_sum"):
        result = disagreement(_claim(claimed, measure, "a.xml", element="v", attribute="a"), root)
        assert result is None or isinstance(result, str)
