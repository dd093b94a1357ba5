# Two commands set everything up on a fresh machine: `make play` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.chuhan-installed

.PHONY: play test test-slow lint bench clean chromium postgresql

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/chuhan play

lint: $(STAMP)
	$(BIN)/ruff check src tests bench tools
	$(BIN)/ruff format --check src tests bench tools
	$(BIN)/mypy

# Browser tests drive Debian's chromium through Playwright (which cannot download its own);
# the CJK fonts draw the pieces' characters in the screenshots.
chromium:
	(command -v chromium >/dev/null && fc-list :lang=zh | grep -q .) || \
	  (apt-get update -q && apt-get install -y -q --no-install-recommends \
	    chromium fonts-arphic-ukai fonts-wqy-microhei)

# The server tests start a throwaway PostgreSQL cluster per test process (tests/conftest.py)
# from Debian's server binaries, which live in /usr/lib/postgresql/N/bin, off the PATH. The
# package's own cluster on port 5432, when its postinst starts one, is not used.
postgresql:
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends postgresql)

test: lint chromium postgresql
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow"

test-slow: $(STAMP) postgresql
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m slow

bench: $(STAMP)
	$(BIN)/python bench/perft.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
