"""Images reach the model as OpenAI-style image parts: the openai backend sends them to a
served endpoint (our own server on 127.0.0.1 checks each request), the embedded backend
refuses them with a clear error, and the cache keys an image by its digest."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from simulacra.experiments import load_scenario, run
from simulacra.llm import ImagePart, ImagesRefused, Message, Request, TextPart, load_model
from simulacra.llm.cache import cache_key
from simulacra.llm.openai_compat import message_json

from .vision_server import REPLY, VisionServer

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _image_request() -> Request:
    parts = (ImagePart(PNG), TextPart("What is your next single movement?"))
    return Request(messages=(Message("user", parts),), purpose="embodied.decide.vlm")


def test_a_message_with_parts_becomes_image_url_and_text_parts() -> None:
    sent = message_json(_image_request().messages[0])
    assert sent["role"] == "user"
    image, text = sent["content"]
    assert image == {"type": "image_url", "image_url": {"url": ImagePart(PNG).data_uri()}}
    assert image["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert text == {"type": "text", "text": "What is your next single movement?"}
    assert message_json(Message("user", "plain")) == {"role": "user", "content": "plain"}


def test_the_openai_backend_sends_the_image_to_the_endpoint() -> None:
    with VisionServer() as server:
        model = load_model(f"openai:{server.url}?model=vision-test")
        completion = asyncio.run(model.complete(_image_request()))
    assert server.problems == []
    assert server.images == [PNG]
    assert completion.text == REPLY and not completion.fallback


def test_the_embedded_backend_refuses_images_and_says_what_to_use() -> None:
    model = load_model("embedded")
    with pytest.raises(ImagesRefused, match=r"reads text only.*agents\.mind=caption"):
        asyncio.run(model.complete(_image_request()))


def test_the_cache_keys_an_image_by_its_digest_and_leaves_text_keys_alone() -> None:
    request = _image_request()
    other = Request(
        messages=(
            Message(
                "user", (ImagePart(PNG + b"x"), TextPart("What is your next single movement?"))
            ),
        ),
        purpose=request.purpose,
    )
    assert cache_key("m", request, None, 0) != cache_key("m", other, None, 0)
    text = Request(messages=(Message("user", "hello"),))
    assert cache_key("m", text, None, 0) == cache_key(
        "m", Request(messages=(Message("user", "hello"),)), None, 0
    )


def test_a_vlm_run_sends_every_first_person_view_to_a_served_model(
    tmp_path: Path, renders: None
) -> None:
    from PIL import Image

    with VisionServer() as server:
        scenario = load_scenario(
            "scenarios/embodied.yaml",
            [
                "agents.mind=vlm",
                f"model.spec=openai:{server.url}?model=vision-test",
                "clock.ticks=3",
                "world.camera.width=128",
                "world.camera.height=96",
                f"output.root={tmp_path}",
                "output.report=false",
            ],
        )
        run_dir = run(scenario, progress=False)
    assert server.problems == []
    assert len(server.images) == 3
    assert Image.open(io.BytesIO(server.images[0])).size == (128, 96)
    assert (
        "Your current pose: position (4.00, 20.10) m, heading 180 deg, gaze +0 deg."
        in server.texts[0]
    )
    assert "The image is your own first-person view." in server.texts[0]
    assert server.bodies[0]["model"] == "vision-test"
    # The image the model saw is the one the run kept, byte for byte.
    events = [json.loads(line) for line in (run_dir.path / "events.jsonl").open()]
    decisions = [e["data"] for e in events if e["kind"] == "decision"]
    assert (run_dir.path / decisions[0]["image"]).read_bytes() == server.images[0]
    moves = [e["data"] for e in events if e["kind"] == "action"]
    assert moves[0]["command"]["forward_m"] == 1.0 and moves[0]["moved_m"] == 1.0
