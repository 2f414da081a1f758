"""The scripted policy: a labelled stand-in for a language model that composes skills.

It reads the prompts as a model would and answers by rule. To act, it chains the loaded
skills, the SUMO tool calls that loaded pages record, and the calls it composes from the
options a learned page lists (a tool's help, read in an earlier episode), backwards from the
required outputs; it writes no code of its own, so a task that nothing in memory covers fails.
It learns a tool by running its `--help` when a task asks, writes a skill when a call composed
from a page succeeds, and records what failed and why on a page when an episode is rejected.
It drives the tests end to end; it is not a model.
"""

from simulacra.lab.scripted.policy import script_lab

__all__ = ["script_lab"]
