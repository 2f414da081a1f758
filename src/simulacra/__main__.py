"""`python -m simulacra`: the same command as `simulacra`."""

from simulacra.cli import main

main()
