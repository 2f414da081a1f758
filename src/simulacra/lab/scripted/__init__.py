"""The scripted policy: a labelled stand-in for a language model that composes skills.

It reads the prompts as a model would and answers by rule. To act, it chains the loaded
skills, and the SUMO tool calls that loaded pages record, backwards from the required outputs
through their declared inputs and outputs, and fills each usage line from the task's inputs;
it writes no code of its own, so a task that nothing in memory covers fails. From an accepted
episode it writes a pipeline skill (a chain of three or more skills no skill covers) and a
page for a tool call memory lacks. It drives the tests end to end; it is not a model.
"""

from simulacra.lab.scripted.policy import script_lab

__all__ = ["script_lab"]
