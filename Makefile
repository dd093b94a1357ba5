# Two commands set everything up on a fresh machine: `make play` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.chuhan-installed

.PHONY: play test test-slow lint bench clean chromium

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

test: lint chromium
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m slow

bench: $(STAMP)
	$(BIN)/python bench/perft.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
