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

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/00_start_here.ipynb

# Every check runs even if an earlier one fails; the exit code reports any failure.
test: $(STAMP)
	@status=0; \
	echo "== ruff (helpers, tests)"; \
	$(VPY) -m ruff check helpers tests || status=1; \
	echo "== pytest tests/"; \
	$(VPY) -m pytest tests || status=1; \
	echo "== nbval (strict) notebooks/"; \
	$(VPY) -m pytest --nbval notebooks || status=1; \
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
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
