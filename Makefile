# glassformer — every target works on a fresh clone with nothing installed.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
# two stamps: BASE, torch and this package (all that `make demo` needs); STAMP, the [dev] extra too
# (the tests, lint and benchmarks), so a demo-only set-up never makes `make test` skip installing it
BASE   := $(VENV)/.base-done
STAMP  := $(VENV)/.setup-done

.PHONY: setup lint check test chromium demo notebooks bench mutants clean po

setup: $(STAMP)

# torch first, pinned: on these machines 2.13.0 is a local CPU wheel; a bare `torch` would pull a CUDA build.
# Each step says what it installs before it starts; torch's install shows pip's own lines (no -q).
$(BASE): pyproject.toml
	@echo "make: setting up $(VENV) (torch==2.13.0 and glassformer); then: . $(VENV)/bin/activate, or call $(VENV)/bin/glassformer"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@echo "make: installing torch==2.13.0 (the largest download)"
	$(PY) -m pip install torch==2.13.0
	@echo "make: installing glassformer and its few dependencies (numpy, matplotlib, tokenizers ...)"
	$(PY) -m pip install -q -e .
	touch $(BASE)

$(STAMP): $(BASE)
	@echo "make: installing the [dev] extra (pytest, transformers, TransformerLens, Playwright, ruff, mypy ...): minutes"
	$(PY) -m pip install -q -e ".[dev]"
	touch $(STAMP)

# the formatter, ruff's rules and mypy (all configured in pyproject.toml); .pre-commit-config.yaml runs the same
lint: setup
	$(PY) -m ruff format --check src tests bench tools
	$(PY) -m ruff check src tests bench tools
	$(PY) -m mypy

# the inner loop (docs/testing.md): the fast tier, the model's parts, the models, sampling, the config,
# the text and the references, less the tests marked slow and the two reference files that compile the
# model or decode hundreds of loops (`make test` runs them); on every core
CHECK := tests/nn tests/models tests/sample tests/logits_processors tests/config tests/text tests/reference \
	--ignore=tests/reference/test_compiled_path.py --ignore=tests/reference/test_cached_decoding.py
check: setup
	$(PY) -m pytest -q -n auto -m "not slow" $(CHECK)

# every tier, on every core (pytest-xdist; tests/conftest.py keeps each file on one worker)
test: lint chromium
	$(PY) -m pytest -n auto --dist loadgroup

# the browser tests (tests/e2e/browser) drive the system's Chromium: as root with apt-get, it is installed
# here, as CI needs; elsewhere this says how, and pytest's summary names the tests it skipped
chromium:
	@if [ -z "$$GLASSFORMER_CHROMIUM" ] && ! command -v chromium >/dev/null 2>&1 \
	    && ! command -v chromium-browser >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Chromium for the browser tests (apt-get install -y chromium)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	      || echo "make: Chromium could not be installed: the browser tests will be skipped"; \
	  else \
	    echo "make: no Chromium, so the browser tests will be skipped; install it: sudo apt-get install -y chromium"; \
	  fi; \
	fi

# the Chinese catalogue (docs/translating.md): extract every sentence from src/glassformer with Babel, update
# src/glassformer/locale/zh/LC_MESSAGES/glassformer.po (a changed English sentence becomes fuzzy, a new one
# untranslated, one no longer said obsolete), compile the .mo; tests/messages/test_catalogue.py checks the result
po: setup
	$(PY) tools/po.py

# only torch and the package (no test tools): the demo starts printing within seconds
demo: $(BASE)
	$(VENV)/bin/glassformer demo

# the notebooks in JupyterLab (the [notebooks] extra); they open in place, in notebooks/. As root,
# --allow-root is added (and said); JupyterLab's own options: make notebooks NOTEBOOKS_ARGS="--port 8899"
notebooks: setup
	$(PY) -m pip install -q -e ".[notebooks]"
	$(VENV)/bin/glassformer notebooks --dir notebooks -- $(NOTEBOOKS_ARGS)

# BENCH_ARGS: e.g. make bench BENCH_ARGS="--shapes baby --steps 5 --no-memory" (bench/peers.py --help)
bench: setup
	$(PY) bench/peers.py $(BENCH_ARGS)

# Mutation testing (docs/testing.md): hours on 2 cores, so never part of `make test`.
#   make mutants                      every mutant of nn, models, train, sample, text, inspect, causal, exercises, lab, explore, devices, post
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
