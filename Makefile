# zmon developer entry points. `make demo` and `make test` set up everything they need.
# The demo serves from its own virtual environment holding zmon and its run-time dependencies
# only; the tests' tools (pytest, mypy, ruff, Grafana's SDK ...) go into $(VENV).
PYTHON    ?= python3
VENV      ?= .venv
PY        := $(VENV)/bin/python
DEMO_VENV ?= .venv-demo
LISTEN    ?= 127.0.0.1:10124

.PHONY: demo test test-fast lint system-deps golden rules bench clean deb

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(DEMO_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(DEMO_VENV)/bin/python -m pip install --quiet -e .
	touch $@

## Serve the demo host (real captures replayed) on $(LISTEN).
demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/zmon serve --demo --web.listen-address $(LISTEN)

## Install the system packages the real-tier tests use (needs root; skips what is present).
system-deps:
	sh tests/install-system-deps.sh

## The full test suite: hermetic tier plus real tier (promtool, NUT upsd, smartctl ...), slow
## tests included.
test: $(VENV)/.installed system-deps
	$(PY) -m pytest

## Hermetic tier without the slow tests (marked `slow`: over 20 s), on every core (pytest-xdist).
test-fast: $(VENV)/.installed
	$(PY) -m pytest -m "not real and not slow" -n auto

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check zmon tests

## Regenerate golden files after an intended output change; review the diff.
golden: $(VENV)/.installed
	$(PY) -m pytest --update-golden -q

## Re-render alert_rules/zmon.rules.yml and the Grafana dashboards from their generators.
rules: $(VENV)/.installed
	$(PY) -m alert_rules.generate
	$(PY) -m grafana.generate

## zmon on a synthetic 1,000-disk host against its peers: one table (about 12 minutes, not
## part of make test; benchmarks/README.md). Needs Debian's mtail and wrk (apt-get install).
bench: $(VENV)/.installed
	@command -v mtail >/dev/null || { echo "make bench compares with mtail: apt-get install mtail"; exit 1; }
	@command -v wrk >/dev/null || { echo "make bench scrapes with wrk: apt-get install wrk"; exit 1; }
	$(PY) -m benchmarks.bench

## Build the Debian package into dist/ (dpkg-buildpackage; README "Packaging").
deb:
	sh packaging/build-deb.sh dist

clean:
	rm -rf dist $(VENV) $(DEMO_VENV) .pytest_cache .ruff_cache build *.egg-info

# ---------------------------------------------------------------------------------------------
# Real OpenZFS lab (tests/lab/): OpenZFS 2.1.11 and 2.3.2 kernel modules in a qemu VM (TCG, no
# KVM needed), zmon serving inside, scraped from the host. Needs root (apt, dkms) and network
# on the first run; artifacts are cached in $(ZMON_LAB_CACHE), keyed by versions and scripts.
ZMON_LAB_CACHE ?= /var/cache/zmon-lab
export ZMON_LAB_CACHE
.PHONY: lab lab-test lab-capture

## Build (or reuse from the cache) the lab: kernel, OpenZFS modules, guest images, zmon layer.
lab: $(VENV)/.installed
	bash tests/lab/host-deps.sh fuse
	ZMON_LAB_PYTHON=$(abspath $(PY)) bash tests/lab/build.sh

## Build the lab (cached) and run its tests: both OpenZFS versions live, zfs-fuse, the table.
lab-test: lab
	ZMON_LAB=1 $(PY) -m pytest tests/lab -ra

## Run the lab and write fresh real outputs into tests/fixtures/lab/<version>/<step>/.
lab-capture: lab
	ZMON_LAB=1 $(PY) -m tests.lab.capture
