# zmon developer entry points. `make demo` and `make test` set up everything they need.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
LISTEN ?= 127.0.0.1:10124

.PHONY: demo test test-fast lint system-deps golden clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

## Serve the demo host (real captures replayed) on $(LISTEN).
demo: $(VENV)/.installed
	$(VENV)/bin/zmon serve --demo --web.listen-address $(LISTEN)

## Install the system packages the real-tier tests use (needs root; skips what is present).
system-deps:
	sh tests/install-system-deps.sh

## The full test suite: hermetic tier plus real tier (promtool, NUT upsd, smartctl ...).
test: $(VENV)/.installed system-deps
	$(PY) -m pytest

## Hermetic tier only (no external programs).
test-fast: $(VENV)/.installed
	$(PY) -m pytest -m "not real"

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check zmon tests

## Regenerate golden files after an intended output change; review the diff.
golden: $(VENV)/.installed
	$(PY) -m pytest --update-golden -q

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
