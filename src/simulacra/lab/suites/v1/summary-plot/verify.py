"""A real PNG figure and a summary covering the whole run."""

from suite_checks import Verdict

verdict = Verdict()
png = verdict.root / "outputs/running.png"
data = png.read_bytes() if png.is_file() else b""
verdict.check("a PNG file", data.startswith(b"\x89PNG\r\n\x1a\n"), len(data))
verdict.check("not a blank figure", len(data) > 5000, len(data))
summary = verdict.xml("outputs/summary.xml")
if summary is not None:
    times = [float(s.get("time")) for s in summary.iter("step")]
    verdict.check("summary reaches 600 s", bool(times) and max(times) >= 600, max(times or [0]))
    running = [int(s.get("running")) for s in summary.iter("step")]
    verdict.check("vehicles ran", max(running or [0]) > 0)
verdict.done()
