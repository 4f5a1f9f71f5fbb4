# casino-stud — the README's commands.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WEB_DEPS := clients/web/node_modules/.package-lock.json

# Where `make run` listens: given, else the config's [server] host and port, else
# 127.0.0.1:8765.
HOST ?=
PORT ?=
# The operator console (loopback only): given, else the config's [admin] port (or
# STUD_ADMIN_PORT), else 8780; and the operators file `stud-server operator add NAME
# --file $(OPERATORS)` writes to for this memory-store run.
ADMIN_PORT ?=
OPERATORS ?= operators.json
ADMIN_PORT_SET = import os, sys, tomllib; path = sys.argv[1:] and sys.argv[1]; \
  data = tomllib.load(open(path, "rb")) if path else {}; \
  print("" if "port" in data.get("admin", {}) or os.environ.get("STUD_ADMIN_PORT") else 8780)

.PHONY: run test lint bench browser chaos clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The browser client's packages (@msgpack/msgpack, @noble/hashes), from its lock file.
$(WEB_DEPS): clients/web/package.json clients/web/package-lock.json
	cd clients/web && npm ci --no-audit --no-fund

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads one).
browser:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } || \
	  echo "chromium is not installed: the browser tests will be skipped (apt-get install chromium)"

run: $(STAMP) $(WEB_DEPS)
	STUD_OPERATORS_FILE=$(OPERATORS) $(BIN)/stud-server serve $(if $(HOST),--host $(HOST),) \
	  $(if $(PORT),--port $(PORT),) $(addprefix --admin-port ,$(or $(ADMIN_PORT),$(shell \
	  $(BIN)/python -c '$(ADMIN_PORT_SET)' $(CONFIG) 2>/dev/null))) $(if $(CONFIG),--config $(CONFIG),)

test: $(STAMP) $(WEB_DEPS) browser
	node --test clients/web/test/
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	BIN=$(BIN) bash deploy/lint.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/evaluator.py

# The chaos test, longer than the one in `make test`: faults for SECONDS, seeded by SEED;
# prints the report and fails on any violation (files in a temporary directory it names).
SECONDS ?= 120
SEED ?= 1
chaos: $(STAMP)
	$(BIN)/python -m tests.chaos --seconds $(SECONDS) --seed $(SEED)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache clients/web/node_modules
