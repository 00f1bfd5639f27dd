# Old-versions check (issue 6 section 3): the widget and core tests in a second
# environment with ipywidgets 7.7 (Colab's), numpy 1.26 and matplotlib 3.7,
# the oldest versions the project's ranges allow.
# Include from the Makefile:   include tests/compat/compat.mk
# The stamp .venv-compat/.installed makes a second run skip pip entirely; pip
# runs again only when requirements-compat.txt or pyproject.toml changes.

PYTHON       ?= python3
COMPAT_VENV  ?= .venv-compat
COMPAT_PY    := $(COMPAT_VENV)/bin/python
COMPAT_REQS  := tests/compat/requirements-compat.txt
COMPAT_STAMP := $(COMPAT_VENV)/.installed
# Tests of helpers/ only (the others need the dev tools: nbformat, yaml, nbval).
# tests/checks/ is every checker test of every lesson (a folder, so a new
# lesson's checkers are included without an edit here).
COMPAT_TESTS  = tests/checks $(wildcard tests/test_widgets.py tests/test_engine.py \
                 tests/test_attention.py tests/test_lexicon.py tests/test_heads.py \
                 tests/test_plots.py tests/test_tinymodel.py tests/test_style.py \
                 tests/test_gpt_widget.py tests/test_pointer.py tests/test_guess.py)


.PHONY: test-compat compat-venv

$(COMPAT_STAMP): $(COMPAT_REQS) pyproject.toml tests/compat/compat.mk
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "ERROR: test-compat needs Python 3.10 or newer as $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(COMPAT_VENV)
	$(COMPAT_PY) -m pip install --quiet --disable-pip-version-check -r $(COMPAT_REQS)
	$(COMPAT_PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@# As in .venv (see the Makefile): rfc3987-syntax, pulled in through
	@# ipywidgets 7's notebook dependency, makes every `import nbformat` ~3 s slower.
	-@$(COMPAT_PY) -m pip uninstall --quiet -y rfc3987-syntax 2>/dev/null
	@touch $@

compat-venv: $(COMPAT_STAMP)

test-compat: $(COMPAT_STAMP)
	@$(COMPAT_PY) -c 'import ipywidgets, matplotlib, numpy; print("== old versions:", \
	  "ipywidgets", ipywidgets.__version__, "numpy", numpy.__version__, \
	  "matplotlib", matplotlib.__version__)'
	$(COMPAT_PY) -m pytest -q -p no:cacheprovider -o addopts= \
	  $(COMPAT_TESTS)
