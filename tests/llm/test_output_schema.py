"""An output model's schema is built once for as long as the model lives (llm/structured.py):
a reaction's model is made for its call, and thousands are made while one call waits for a
slot."""

from __future__ import annotations

import gc
import weakref

from pydantic import create_model

from simulacra.llm.structured import output_schema


def test_a_models_schema_is_built_once_however_many_models_come_after_it() -> None:
    waiting = create_model("Waiting", target=(str, ...))
    schema = output_schema(waiting)
    for i in range(1100):  # more than a bounded cache of 1,024 held
        output_schema(create_model(f"Other{i}", value=(int, ...)))
    assert output_schema(waiting) is schema
    assert schema == waiting.model_json_schema()


def test_the_schema_does_not_keep_its_model_alive() -> None:
    model = create_model("Passing", x=(int, ...))
    output_schema(model)
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None
