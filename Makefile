# glassformer — every target works on a fresh clone with nothing installed.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.setup-done

.PHONY: setup test demo bench clean

setup: $(STAMP)

# torch first, pinned: on these machines 2.13.0 is a local CPU wheel; a bare `torch` would pull a CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

test: setup
	$(PY) -m pytest

demo: setup
	$(VENV)/bin/glassformer demo

# BENCH_ARGS: e.g. make bench BENCH_ARGS="--shapes baby --steps 5 --no-memory" (bench/peers.py --help)
bench: setup
	$(PY) bench/peers.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
