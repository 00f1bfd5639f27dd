# ipywidgets 7.7's own front end (issue 51 parts 7 and 8): the explorers in
# JupyterLab 3.6 + ipywidgets 7.7 + anywidget 0.9, in a real Chromium. Colab
# runs ipywidgets 7.7 with a front end of its own; this is the closest a test
# here can come. Include from the Makefile, after VPY and STAMP are defined:
#   include tests/compat/lab3.mk
#
#   make test-lab3   tests/browser/test_lab3.py with JupyterLab (and its
#                    kernel) started from .venv-lab3; pytest and Playwright
#                    run from .venv (ATTN_LAB_PYTHON, tests/browser/conftest.py)
#
# The stamp .venv-lab3/.installed makes a second run skip pip; pip runs again
# only when requirements-lab3.txt or pyproject.toml changes. Making the
# environment also checks that the widget extensions JupyterLab 3 needs
# (ipywidgets 7's and anywidget's, both prebuilt: no node) are installed and
# enabled. Needs Chromium like tests/browser (browser.mk).

PYTHON     ?= python3
LAB3_VENV  ?= .venv-lab3
LAB3_PY    := $(LAB3_VENV)/bin/python
LAB3_REQS  := tests/compat/requirements-lab3.txt
LAB3_STAMP := $(LAB3_VENV)/.installed

.PHONY: test-lab3 lab3-venv

$(LAB3_STAMP): $(LAB3_REQS) pyproject.toml tests/compat/lab3.mk
	$(PYTHON) -m venv $(LAB3_VENV)
	$(LAB3_PY) -m pip install --quiet --disable-pip-version-check -r $(LAB3_REQS)
	$(LAB3_PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@# as in .venv-compat (compat.mk): rfc3987-syntax makes `import nbformat` ~3 s slower
	-@$(LAB3_PY) -m pip uninstall --quiet -y rfc3987-syntax 2>/dev/null
	@$(LAB3_VENV)/bin/jupyter labextension list 2>&1 | tee $(LAB3_VENV)/labextensions.txt \
	  | grep -E '(anywidget|jupyter-widgets/jupyterlab-manager) v[0-9.]+ .*enabled.*OK'
	@$(LAB3_VENV)/bin/jupyter labextension list 2>&1 | grep -q 'anywidget v0\.9' || { \
	  echo "ERROR: anywidget 0.9's JupyterLab 3 extension is not enabled in $(LAB3_VENV)"; exit 1; }
	@$(LAB3_VENV)/bin/jupyter labextension list 2>&1 | grep -q 'jupyterlab-manager v3\.' || { \
	  echo "ERROR: ipywidgets 7's JupyterLab 3 extension is not enabled in $(LAB3_VENV)"; exit 1; }
	@touch $@

lab3-venv: $(LAB3_STAMP)

test-lab3: $(STAMP) $(LAB3_STAMP)
	@echo "== ipywidgets 7.7's front end: JupyterLab 3 + ipywidgets 7.7 (tests/compat/lab3.mk)"
	ATTN_LAB_PYTHON=$(LAB3_PY) $(VPY) -m pytest tests/browser/test_lab3.py -q -rs -s \
	  -p no:cacheprovider --durations=3
