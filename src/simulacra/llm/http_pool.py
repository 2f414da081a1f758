"""Many small httpx transports sharing the calls in flight.

httpx's connection pool rescans every connection whenever a request queues or finishes,
so its cost per call grows with its size: at 128 calls in flight one big client spends more
CPU in its pool than on the wire. Transports of two connections, each call on the least
busy one, keep that cost flat; going to the transport directly skips the client's cookie,
redirect and auth layers, which an API call does not use. Together they halve the CPU per
call (measured by bench/llm_gateway.py).
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import Any

import httpx

CONNECTIONS_PER_TRANSPORT = 2


@dataclass
class _Transport:
    http: httpx.AsyncHTTPTransport
    busy: int = 0


class HttpPool:
    """POSTs JSON with up to `connections` requests in flight, over keep-alive connections."""

    def __init__(
        self,
        *,
        connections: int,
        timeout_s: float,
        headers: dict[str, str],
        verify: ssl.SSLContext | bool,
    ) -> None:
        self.connections = max(1, connections)
        self.headers = {"User-Agent": "simulacra", **headers}
        self.verify = verify
        self._timeout = httpx.Timeout(timeout_s).as_dict()
        self._transports: list[_Transport] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def _open(self) -> list[_Transport]:
        # Connections belong to one event loop; a new loop gets new transports.
        loop = asyncio.get_running_loop()
        if not self._transports or self._loop is not loop:
            full, rest = divmod(self.connections, CONNECTIONS_PER_TRANSPORT)
            sizes = [CONNECTIONS_PER_TRANSPORT] * full + ([rest] if rest else [])
            self._transports = [_Transport(self._transport(size)) for size in sizes]
            self._loop = loop
        return self._transports

    def _transport(self, size: int) -> httpx.AsyncHTTPTransport:
        return httpx.AsyncHTTPTransport(
            verify=self.verify,
            limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
        )

    async def post(self, url: str, body: dict[str, Any]) -> httpx.Response:
        """The response, read in full. Raises httpx errors for transport faults."""
        transport = min(self._open(), key=lambda t: t.busy)
        request = httpx.Request(
            "POST", url, json=body, headers=self.headers, extensions={"timeout": self._timeout}
        )
        transport.busy += 1
        try:
            response = await transport.http.handle_async_request(request)
            try:
                await response.aread()
            finally:
                await response.aclose()
            return response
        finally:
            transport.busy -= 1

    async def aclose(self) -> None:
        transports, self._transports = self._transports, []
        for transport in transports:
            await transport.http.aclose()
