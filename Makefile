# Two commands set everything up on a fresh machine: `make play` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.chuhan-installed

.PHONY: play test test-slow lint bench clean chromium postgresql compiler native docs

# The editable install brings the dependencies and installs chuhan as pure Python
# (CHUHAN_PURE=1); `make native` then compiles the engine's hot modules in place with mypyc
# where a C compiler and the Python headers are found (setup.py), so that `make test` can
# compile while it lints. (A plain `pip install -e .` or `pip install .` compiles them too.)
$(STAMP): pyproject.toml setup.py | compiler
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CHUHAN_PURE=1 $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# A C compiler and Python's headers for mypyc. pyenv's and python.org's Pythons carry their
# headers; Debian's python3 needs python3-dev. Installed when missing and we are root on
# Debian; otherwise (or if that fails) chuhan installs as pure Python and says so.
compiler:
	@(command -v cc >/dev/null && $(PYTHON) -c "import os, sys, sysconfig; \
	  sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))") || \
	  ([ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc python3-dev) || \
	  echo "no C compiler or Python headers: chuhan will be pure Python (slower search)"

# The compiled modules are rebuilt whenever chuhan would not load them (a source changed
# since they were built, or none were): what the tests and benchmarks run is what an
# install of these sources runs. CHUHAN_PURE=1 asks for pure Python instead.
native: $(STAMP)
	@CHUHAN_PURE= $(BIN)/python -c "import chuhan, sys; sys.exit(not chuhan.BUILD.compiled)" || \
	  (echo "chuhan: compiling the engine's modules with mypyc, once for these sources" \
	    "(1 to 5 minutes on 2 cores; CHUHAN_PURE=1 skips it)" && \
	   $(BIN)/python setup.py --quiet build_ext --inplace)
	@$(BIN)/python -c "import chuhan; print('chuhan', chuhan.__version__ + ',', chuhan.BUILD.describe())"

play: native
	$(BIN)/chuhan play

lint: $(STAMP) js-check
	$(BIN)/ruff check src tests bench tools setup.py
	$(BIN)/ruff format --check src tests bench tools setup.py
	$(BIN)/mypy
	$(BIN)/mypy tests/web/conftest.py  # the second `conftest` (see pyproject.toml's [tool.mypy])
	$(BIN)/lint-imports

# The browser code's JSDoc types, checked by TypeScript's checker with no build and no npm:
# Debian's node-typescript, over the modules that start with // @ts-check
# (jsconfig.json says how strictly).
.PHONY: js-check
js-check:
	command -v tsc >/dev/null || \
	  (apt-get update -q && apt-get install -y -q --no-install-recommends node-typescript)
	tsc -p jsconfig.json

# Browser tests drive Debian's chromium through Playwright (which cannot download its own);
# the CJK fonts draw the pieces' characters in the screenshots; poppler's pdftotext and
# pdftoppm read the tournaments' printed pages back.
chromium:
	(command -v chromium >/dev/null && fc-list :lang=zh | grep -q . && command -v pdftoppm >/dev/null) || \
	  (apt-get update -q && apt-get install -y -q --no-install-recommends \
	    chromium fonts-arphic-ukai fonts-wqy-microhei poppler-utils)

# The server tests start a throwaway PostgreSQL cluster per test process (tests/conftest.py)
# from Debian's server binaries, which live in /usr/lib/postgresql/N/bin, off the PATH. The
# package's own cluster on port 5432, when its postinst starts one, is not used.
postgresql:
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends postgresql)

# The API reference, from the docstrings (Sphinx: docs/api/conf.py), into build/docs; every
# warning is an error. `make test` builds it beside lint (about 24 CPU seconds; a rebuild
# reads only what changed).
docs: $(STAMP)
	$(BIN)/sphinx-build -q -W --keep-going -b html docs/api build/docs
	@echo "chuhan: the API reference is build/docs/index.html"

# Every test runs on the build an install gives (compiled where it can be); the rules, the
# search and the engine's UCI front also run on pure Python, which an install without a C
# compiler gives. Neither lint, the pure-Python pass nor the API reference needs the
# compiled modules: they run one after another (test-checks) beside the compile and then
# beside the tests; their output is printed as one block when they end, and a failure in
# any of them fails `make test`. (On 2 CPUs this saved no wall time in a quiet run: the
# suite keeps both busy, chromium above all; see the README.)
PURE_TESTS := tests/test_perft.py tests/test_search.py tests/test_uci.py tests/test_native.py

# Four test processes on two CPUs: a good part of the suite waits (a clock running out, a
# server starting, a process taken over, a page drawn), and the third and fourth processes
# use those waits (with three, the CPUs sat idle about a third of the suite's time).
TEST_PROCESSES ?= 4

test: $(STAMP) chromium postgresql
	$(MAKE) --no-print-directory --jobs=2 test-compiled test-checks

.PHONY: test-compiled test-checks test-pure
test-compiled: native
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadgroup -m "not slow"

test-checks: $(STAMP)
	@mkdir -p build
	@$(MAKE) --no-print-directory lint test-pure docs > build/test-checks.log 2>&1; \
	  status=$$?; echo "----- lint, the pure-Python tests and the API reference:"; \
	  cat build/test-checks.log; exit $$status

test-pure: $(STAMP)
	CHUHAN_PURE=1 $(BIN)/python -m pytest -p no:cacheprovider -n 2 --dist loadgroup \
	  -m "not slow" $(PURE_TESTS)

test-slow: native postgresql chromium
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m slow

bench: native
	$(BIN)/python bench/perft.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
	rm -f src/chuhan/_native.json
	find src/chuhan -name "*.so" -delete
