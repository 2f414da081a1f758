"""The junctions of a given network, as the scripted policy learns them: by reading the network.

A task that puts traffic lights at junctions names them in words ("junctions J1, J2 and J3");
the policy does not take a word for an id. When a loaded tool takes junction ids (a page's
`junctions` option, netconvert's `--tls.set`), its first step reads the network it was given
with sumolib and prints the junctions and the traffic lights there; the next step binds the
ids that the task names and the network holds, or, where the task names none, the network's
own traffic lights.
"""

from __future__ import annotations

import re
import shlex

_LISTING = re.compile(r"^(junctions|traffic lights) of (\S+): ?(.*)$", re.M)
_ASKS = re.compile(r"\b(?:junctions?|traffic lights?|signals?)\b", re.I)
_READ = (
    "import sumolib, sys; net = sumolib.net.readNet(sys.argv[1]); "
    "print('junctions of', sys.argv[1] + ':', *sorted(n.getID() for n in net.getNodes())); "
    "print('traffic lights of', sys.argv[1] + ':', "
    "*sorted(t.getID() for t in net.getTrafficLights()))"
)


def asks(text: str) -> bool:
    """Whether a task speaks of junctions or lights at all."""
    return _ASKS.search(text) is not None


def read_command(net: str) -> str:
    """The command that prints a network's junctions and traffic lights."""
    return f"python -c {shlex.quote(_READ)} {shlex.quote(net)}"


def listing(seen: str, net: str) -> tuple[list[str], list[str]] | None:
    """(junctions, traffic lights) of `net` as an earlier step printed them, or None."""
    found = {what: ids.split() for what, path, ids in _LISTING.findall(seen) if path == net}
    if "junctions" not in found:
        return None
    return found["junctions"], found.get("traffic lights", [])


def chosen(text: str, junctions: list[str], lights: list[str]) -> list[str]:
    """The junctions the task names (whole words) that the network holds, in the network's
    order; none named, its own traffic lights."""
    named = set(re.findall(r"[\w:.-]+", text))
    return [j for j in junctions if j in named] or lights
