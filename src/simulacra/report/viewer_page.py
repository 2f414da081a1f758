"""viewer.html: one self-contained page (inline CSS, JS and replay data) that replays a run."""

from __future__ import annotations

import base64
import hashlib
from html import escape
from importlib.resources import files

from simulacra.report.per_world import report_of_run
from simulacra.report.replay_model import Replay
from simulacra.report.safe_json import json_for_script

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>{css}</style>
</head>
<body{live}>
<header><h1>{title}</h1><span id="run-meta"></span><span id="live" role="status"></span></header>
{family}
<main>
<section id="stage">
<svg id="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="map of the world"></svg>
<div id="now"><h2>At this time</h2><ul id="now-list"></ul></div>
</section>
<aside id="panel" aria-live="polite"></aside>
</main>
<footer id="controls">
<button type="button" id="play">Play</button>
<button type="button" id="pause">Pause</button>
<button type="button" id="step-back" title="previous step">&#9664;</button>
<button type="button" id="step-forward" title="next step">&#9654;</button>
<input type="range" id="scrubber" min="0" max="0" value="0" aria-label="time" list="branch-marks">
<span id="clock"></span>
<label>speed <select id="speed">
<option value="1">1 step/s</option><option value="2" selected>2 steps/s</option>
<option value="4">4 steps/s</option><option value="8">8 steps/s</option>
</select></label>
</footer>
<script type="application/json" id="replay-data">{data}</script>
<script>{js}</script>{console}
</body>
</html>
"""


_SCRIPTS = ("viewer_layout.js", "viewer.js", "viewer_side.js")

# What a live viewer polls for the replay as it stands (the server answers it; see serve.py).
LIVE_DATA = "replay.json"


def render_viewer(
    replay: Replay, *, live: bool = False, console: str | None = None, family: str = ""
) -> str:
    """The viewer page; `live` makes it poll LIVE_DATA and follow the run as it is written;
    `console` (a live console's token) adds the console's panel (console.js); `family`: a
    fork's tree and marks (report/family.py), HTML escaped there."""
    assets = files("simulacra.report")
    # One script: the map's layout (boxes that must not cover one another), the world's own
    # drawing (per_world.py), then the viewer.
    read = [assets.joinpath(name).read_text(encoding="utf-8") for name in _SCRIPTS]
    js = "\n".join([read[0], report_of_run(replay).script, *read[1:]])
    css = assets.joinpath("viewer.css").read_text(encoding="utf-8")
    extra = assets.joinpath("console.js").read_text(encoding="utf-8") if console else ""
    if "</" in js or "</" in css or "</" in extra:
        raise ValueError("the viewer's and console's JS and CSS must not contain '</'")
    # Only these exact scripts may run; injected markup could never execute even if it got in.
    hashes = " ".join(f"'sha256-{_digest(script)}'" for script in (js, extra) if script)
    csp = (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; "
        # frame-src: the side-by-side mode shows a sibling's viewer.html (file: or served).
        "img-src data:; frame-src 'self' file:; base-uri 'none'; form-action 'none'"
        + ("; connect-src 'self'" if live else "")
    )
    title = f"simulacra replay: {replay.run.scenario}"
    return _PAGE.format(
        csp=csp,
        title=escape(title),
        css=css,
        live=(f' data-live="{LIVE_DATA}"' if live else "")
        + (f' data-console="{escape(console)}"' if console else ""),
        family=family,
        data=json_for_script(replay.to_dict()),
        js=js,
        console=f"\n<script>{extra}</script>" if extra else "",
    )


def _digest(script: str) -> str:
    return base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
