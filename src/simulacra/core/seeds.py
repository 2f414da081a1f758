"""Seeds derived from names, the same in every process (unlike hash()): an agent's from the
run's, a model call's from the agent's, its purpose and the simulated time.

Two derivations, each kept so that recorded runs replay: `derived_seed` (BLAKE2b, most
seeds) and `crc_seed` (CRC-32, the commute's). Both keep 31 bits, a non-negative int any
random generator and model backend takes."""

from __future__ import annotations

import hashlib
import zlib


def _material(parts: tuple[object, ...]) -> bytes:
    return "|".join(str(part) for part in parts).encode()


def derived_seed(*parts: object) -> int:
    """A seed fixed by `parts`, joined by "|" (BLAKE2b, 4 bytes, little-endian, >> 1)."""
    return int.from_bytes(hashlib.blake2b(_material(parts), digest_size=4).digest(), "little") >> 1


def crc_seed(*parts: object) -> int:
    """A seed fixed by `parts`, joined by "|" (CRC-32, its low 31 bits): the commute's."""
    return zlib.crc32(_material(parts)) & 0x7FFFFFFF
