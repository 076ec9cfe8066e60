# Mnemoscope — the two commands a new user needs: `make run` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOME_DIR ?= $(or $(MNEMOSCOPE_HOME),./data)
PORT ?= 8501
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: run test check setup setup-dev chromium postgresql lint typecheck unit bench clean test-llm

$(VENV)/bin/python:
	python3 -m venv $(VENV)

$(VENV)/.req-stamp: requirements.txt | $(VENV)/bin/python
	$(PIP) install --disable-pip-version-check -q -r requirements.txt
	touch $@

$(VENV)/.dev-stamp: requirements-dev.txt $(VENV)/.req-stamp
	$(PIP) install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

setup: $(VENV)/.req-stamp

setup-dev: $(VENV)/.dev-stamp chromium

# Debian's chromium for the browser tests (never `playwright install`).
chromium:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium)

# Debian's PostgreSQL for the both-engines tests (a throwaway cluster per test session).
postgresql:
	@test -x /usr/lib/postgresql/15/bin/initdb || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq postgresql)

run: setup
	$(PY) -m memory_core --home "$(HOME_DIR)" setup-sample
	MNEMOSCOPE_HOME="$(HOME_DIR)" $(VENV)/bin/streamlit run app.py --server.headless true \
	  --server.address 127.0.0.1 --server.port $(PORT) --browser.gatherUsageStats false

lint: setup-dev
	$(VENV)/bin/ruff check memory_core components pages app.py tests benchmarks

typecheck: setup-dev
	$(VENV)/bin/mypy memory_core components pages app.py tests

# The fast lane (aimed under 3 minutes): lint, types, every test not marked slow or browser
# (what it leaves out: README, "Tests and benchmarks"; `make test` runs everything).
check: setup-dev postgresql lint typecheck
	$(PY) -m pytest -q -m "not slow and not browser" tests

# Everything, browser tests included.
test: setup-dev postgresql lint typecheck
	$(PY) -m pytest -q --durations=25 tests

bench: setup
	$(PY) -m memory_core --home /tmp/mnemoscope-bench bench build ../shared/bench/locomo_dev.json

# Optional: a real llama.cpp server with a tiny model (slow to build; not part of `make test`).
test-llm: setup-dev
	$(PY) benchmarks/llm_real.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache test-artifacts
