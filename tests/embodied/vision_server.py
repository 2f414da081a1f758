"""A chat-completions server of our own on 127.0.0.1 that checks each request carries the
first-person image as an OpenAI-style image part, and answers with a movement."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

REPLY = "I see a long module with racks on both sides. move forward 1 m"


class VisionServer:
    """`with VisionServer() as server:` -> `server.url`; `server.images` holds every PNG it
    was sent, `server.problems` every way a request fell short (HTTP 400 was answered)."""

    def __init__(self, reply: str = REPLY) -> None:
        self.reply = reply
        self.images: list[bytes] = []
        self.texts: list[str] = []
        self.problems: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                problem = owner.check(self.path, body)
                if problem:
                    owner.problems.append(problem)
                    self._send(400, {"error": {"message": problem}})
                    return
                answer = {
                    "choices": [{"message": {"role": "assistant", "content": owner.reply}}],
                    "usage": {"prompt_tokens": 300, "completion_tokens": 20},
                }
                self._send(200, answer)

            def _send(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def check(self, path: str, body: dict[str, Any]) -> str:
        self.bodies.append(body)
        if path != "/v1/chat/completions":
            return f"wrong path {path}"
        content = body["messages"][-1]["content"]
        if not isinstance(content, list):
            return "the user message's content is not a list of parts"
        images = [p for p in content if p.get("type") == "image_url"]
        texts = [p for p in content if p.get("type") == "text"]
        if len(images) != 1 or len(texts) != 1:
            return f"expected one image part and one text part, got {content!r:.200}"
        url = images[0]["image_url"]["url"]
        prefix = "data:image/png;base64,"
        if not url.startswith(prefix):
            return f"the image is not a base64 PNG data URI: {url[:40]}"
        png = base64.b64decode(url[len(prefix) :], validate=True)
        if not png.startswith(b"\x89PNG\r\n\x1a\n"):
            return "the image's bytes are not a PNG"
        self.images.append(png)
        self.texts.append(texts[0]["text"])
        return ""

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
