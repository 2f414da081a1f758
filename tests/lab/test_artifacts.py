"""SUMO's headers, the comparison of a delivered file with its reproduction, PNG checks."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import matplotlib
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from simulacra.lab.artifacts import agree, normalise, png_problem, sumo_header, xml_root
from simulacra.lab.tasks import SUITES

matplotlib.use("Agg")
GRID = SUITES / "v1" / "_files" / "grid.net.xml"
STATISTICS = b"""<?xml version="1.0" encoding="UTF-8"?>

<!-- generated on 2026-12-01T21:46:47.083569+00:00 by Eclipse SUMO sumo 1.28.0
<sumoConfiguration>
    <time><end value="1500"/></time>
</sumoConfiguration>
-->

<statistics>
    <performance clockBegin="1796161607.08" clockEnd="1796161607.61" clockDuration="0.53" \
traciDuration="0.00" realTimeFactor="2851.71" vehicleUpdatesPerSecond="0.00" \
personUpdatesPerSecond="0.00" begin="0.00" end="1500.00" duration="1500.00"/>
    <vehicles loaded="300" inserted="300" running="0" waiting="0"/>
    <vehicleTripStatistics count="300" routeLength="854.27" speed="11.09"/>
</statistics>
"""


def _figure(blank: bool = False) -> bytes:
    figure = Figure(figsize=(2, 2))
    if not blank:
        figure.add_subplot().plot([0, 1, 2], [2, 0, 1])
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=50)
    return buffer.getvalue()


def test_a_sumo_header_names_the_tool_and_its_configuration() -> None:
    header = sumo_header(GRID)
    assert header is not None and header.tool == "netgenerate"
    assert "<grid.number value=" in header.config and not header.python_tool
    assert xml_root(GRID) == "net"


def test_a_file_without_a_header_has_none(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("<net/>")
    assert sumo_header(tmp_path / "a.xml") is None and xml_root(tmp_path / "a.xml") == "net"
    # A header buried below the top of a file is not the file's header.
    (tmp_path / "b.xml").write_bytes(b"<net>" + b" " * 300 + STATISTICS[40:])
    assert sumo_header(tmp_path / "b.xml") is None


def test_identical_but_for_sumos_times_agree() -> None:
    later = STATISTICS.replace(b"2026-12-01T21:46:47", b"2027-01-02T03:04:05").replace(
        b'clockDuration="0.53"', b'clockDuration="9.99"'
    )
    assert agree(STATISTICS, STATISTICS, sumo=True).how == "identical"
    verdict = agree(STATISTICS, later, sumo=True)
    assert verdict.same and verdict.how == "identical but for SUMO's times"
    assert normalise(STATISTICS) == normalise(later)


def test_a_number_one_unit_off_in_its_last_decimal_is_within_tolerance_and_two_are_not() -> None:
    near = STATISTICS.replace(b'speed="11.09"', b'speed="11.10"')
    far = STATISTICS.replace(b'speed="11.09"', b'speed="11.11"')
    assert agree(STATISTICS, near, sumo=True).how.startswith("within tolerance")
    assert not agree(STATISTICS, far, sumo=True).same
    # A count that changes is not a rounding: the text around it differs in length.
    more = STATISTICS.replace(b'inserted="300"', b'inserted="3001"')
    assert not agree(STATISTICS, more, sumo=True).same


def test_any_other_file_must_be_identical() -> None:
    assert not agree(b'{"trips": 300}', b'{"trips": 301}', sumo=False).same
    assert agree(b"same", b"same", sumo=False).same


def test_a_real_figure_is_a_png() -> None:
    assert png_problem(_figure()) is None


def test_a_signature_with_padding_is_not_a_png() -> None:
    assert "chunk" in (png_problem(b"\x89PNG\r\n\x1a\n" + bytes(6000)) or "")
    assert png_problem(b"GIF89a") == "no PNG signature"


def test_a_figure_with_bytes_after_its_end_is_refused() -> None:
    assert "after the image's end" in (png_problem(_figure() + bytes(6000)) or "")


def test_a_figure_with_a_broken_chunk_is_refused() -> None:
    data = bytearray(_figure())
    data[40] ^= 0xFF  # inside IHDR or the first data chunk
    assert "CRC" in (png_problem(bytes(data)) or "")


def test_a_blank_canvas_is_refused() -> None:
    assert "blank" in (png_problem(_figure(blank=True)) or "")


def test_a_png_whose_pixels_do_not_decode_is_refused() -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    data = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", b"not zlib")
        + chunk(b"IEND", b"")
    )
    assert "do not decode" in (png_problem(data) or "")


@settings(max_examples=40, deadline=None)
@given(tail=st.binary(min_size=1, max_size=64))
def test_no_bytes_may_follow_a_figure(tail: bytes) -> None:
    assert png_problem(_FIGURE + tail) is not None


_FIGURE = _figure()
