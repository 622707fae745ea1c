# glassformer — every target works on a fresh clone with nothing installed.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.setup-done

.PHONY: setup lint test demo notebooks bench mutants clean

setup: $(STAMP)

# torch first, pinned: on these machines 2.13.0 is a local CPU wheel; a bare `torch` would pull a CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

# the formatter, ruff's rules and mypy (all configured in pyproject.toml); .pre-commit-config.yaml runs the same
lint: setup
	$(PY) -m ruff format --check src tests bench
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy

test: lint
	$(PY) -m pytest

demo: setup
	$(VENV)/bin/glassformer demo

# the notebooks in JupyterLab (the [notebooks] extra); they open in place, in notebooks/. As root,
# --allow-root is added (and said); JupyterLab's own options: make notebooks NOTEBOOKS_ARGS="--port 8899"
notebooks: setup
	$(PY) -m pip install -q -e ".[notebooks]"
	$(VENV)/bin/glassformer notebooks --dir notebooks $(NOTEBOOKS_ARGS)

# BENCH_ARGS: e.g. make bench BENCH_ARGS="--shapes baby --steps 5 --no-memory" (bench/peers.py --help)
bench: setup
	$(PY) bench/peers.py $(BENCH_ARGS)

# Mutation testing (docs/testing.md): hours on 2 cores, so never part of `make test`.
#   make mutants                      every mutant of nn, models, train, sample, text, inspect
#   make mutants GROUPS="train sample" only those groups
#   make mutants SAMPLE=100           a seeded random sample of 100 mutants per group
#   make mutants SAMPLE=10 SEED=1 EXCLUDE=mutants/sample-seed0.txt   a fresh sample, none from that list
#   make mutants SAMPLE=15 SEED=2 EXCLUDE="mutants/sample-seed0.txt mutants/sample-seed1.txt"   none from either
mutants: setup
	$(PY) tests/mutation/groups.py run $(GROUPS) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(SEED),--seed $(SEED)) \
		$(if $(EXCLUDE),--exclude $(EXCLUDE))
	$(PY) tests/mutation/groups.py report $(if $(SAMPLE),--names mutants/sample-names.txt)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache mutants
